// The Vercel AI SDK's default OpenAI provider (`openai(id)` calls POST /responses) pointed straight at
// the OpenAI-family simulator: its strict response schemas accept the simulator's wire, so the
// same client can later be pointed at the gateway's Responses dialect.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, jsonSchema, streamText, tool } from 'ai';
import { startOpenAISimulator, type OpenAISimulator } from '../../simulators/openai/server.ts';

const API_KEY = 'sk-sim-test';

let sim: OpenAISimulator;
before(async () => {
  sim = await startOpenAISimulator({ apiKey: API_KEY, streamChunks: 5 });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const model = (id = 'gpt-4o-mini') => createOpenAI({ apiKey: API_KEY, baseURL: sim.baseUrl })(id);

const weather = tool({
  description: 'Weather in a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
  execute: async ({ city }) => `sunny in ${city}`,
});

describe('Vercel AI SDK (@ai-sdk/openai default provider) against the simulator', () => {
  test('generateText calls /responses and reads text and usage', async () => {
    const result = await generateText({ model: model(), prompt: 'Hello AI SDK', maxRetries: 0 });
    assert.equal(sim.requests.at(-1)?.path, '/v1/responses');
    assert.match(result.text, /^Echo: Hello AI SDK \|/);
    assert.equal(result.finishReason, 'stop');
    assert.ok((result.usage.inputTokens ?? 0) > 0 && (result.usage.outputTokens ?? 0) > 0);
  });

  test('streamText reassembles the streamed deltas', async () => {
    const result = streamText({ model: model(), prompt: 'Stream for the AI SDK', maxRetries: 0 });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    assert.match(text, /^Echo: Stream for the AI SDK \|/);
    assert.equal(await result.text, text);
    assert.equal(await result.finishReason, 'stop');
  });

  test('a tool: the call, its result sent back, the closing answer', async () => {
    const result = await generateText({ model: model(), prompt: 'Weather in Paris?', tools: { weather }, stopWhen: isStepCount(2), maxRetries: 0 });
    assert.equal(result.steps.length, 2);
    const [call] = result.steps[0]!.toolCalls;
    assert.equal(call?.toolName, 'weather');
    assert.match(result.text, /^Tool result: /);
    const second = sim.requests.at(-1)?.body as { input: Array<{ type?: string }> };
    assert.ok(second.input.some((item) => item.type === 'function_call_output'));
  });

  test('a reasoning model: reasoning tokens reach the SDK usage', async () => {
    const result = await generateText({ model: model('o4-mini'), prompt: 'Think', maxRetries: 0, providerOptions: { openai: { reasoningSummary: 'auto' } } });
    assert.match(result.text, /^Echo: Think/);
    assert.equal(result.usage.outputTokenDetails.reasoningTokens, 64);
    assert.ok((result.reasoningText ?? '').length > 0);
  });
});
