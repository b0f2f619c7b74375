// The Responses dialect writes the model's reasoning (issue 20), end to end with the real clients:
// the official openai SDK asks `reasoning: { effort, summary: 'auto' }` of an Anthropic and a Gemini
// model served through the IR, and reads a reasoning item whose summary is the simulator's thinking
// text (Anthropic's thinking block; Gemini's thought part, shown with includeThoughts), before the
// message, streamed and not, with the reasoning billed exactly as output. Without a summary no
// reasoning item is written. The Vercel AI SDK reads the text as its reasoning, and its next turn
// (which references the stored reasoning item) is served.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { countTokens } from '../../simulators/_kit/text.ts';
import { assertChargedExactly } from '../helpers/billing.ts';
import { addFamilyProvider, CHAT_MODEL, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

type Family = 'anthropic' | 'gemini';
const FAMILIES: readonly Family[] = ['anthropic', 'gemini'];
const CREDIT = 5;
const START = CREDIT * 1e9;
/** the thought tokens the Gemini simulator reports for a thinking model (thoughtsTokenCount) */
const GEMINI_THOUGHT_TOKENS = 12;

let tg: TestGateway;
const upstreams = new Map<Family, FamilyUpstream>();

before(async () => {
  tg = await startTestGateway({ simulator: false });
  for (const family of FAMILIES) upstreams.set(family, await addFamilyProvider(tg, family, { simulator: { streamChunks: 4 } }));
});
after(async () => {
  await tg.close();
  for (const upstream of upstreams.values()) await upstream.close();
});

const sdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1`, maxRetries: 0 });
const usageOf = (u: OpenAI.Responses.ResponseUsage) => ({ prompt: u.input_tokens, completion: u.output_tokens, cached: u.input_tokens_details.cached_tokens });

/** what each simulator thinks about a prompt (simulators/anthropic/reply.ts, simulators/gemini/reply.ts) */
function thoughtOf(family: Family, prompt: string): string {
  return family === 'anthropic' ? `Thinking about: ${prompt}.` : `Thinking about: ${prompt}. Answering plainly.`;
}

/** the output tokens the vendor bills: Anthropic counts the thinking text in output_tokens, Gemini adds its thought tokens */
function expectedOutput(family: Family, thought: string, answer: string): { output: number; reasoning: number } {
  return family === 'anthropic' ? { output: countTokens(thought) + countTokens(answer), reasoning: 0 } : { output: countTokens(answer) + GEMINI_THOUGHT_TOKENS, reasoning: GEMINI_THOUGHT_TOKENS };
}

function upstreamBody(family: Family): Record<string, unknown> {
  return upstreams.get(family)!.requests.at(-1)!.body as Record<string, unknown>;
}

/** the vendor was asked to think and (with a summary) to show it */
function assertAskedToThink(family: Family, show: boolean): void {
  const body = upstreamBody(family);
  if (family === 'anthropic') {
    assert.deepEqual(body.thinking, { type: 'adaptive' });
  } else {
    const config = (body.generationConfig as { thinkingConfig: Record<string, unknown> }).thinkingConfig;
    assert.equal(config.thinkingLevel, 'HIGH');
    assert.equal(config.includeThoughts, show ? true : undefined);
  }
}

for (const family of FAMILIES) {
  const model = CHAT_MODEL[family];
  describe(`Responses reasoning → ${family} (${model})`, () => {
    test('openai SDK: a reasoning item first whose summary is the thinking text, then the message; no warning; the reasoning billed exactly as output', async () => {
      const c = await tg.customer(CREDIT);
      const prompt = 'Think it over';
      const { data: response, response: http } = await sdk(c).responses.create({ model, input: prompt, reasoning: { effort: 'high', summary: 'auto' } }).withResponse();
      assertAskedToThink(family, true);
      assert.equal(http.headers.get('x-modelgate-warning'), null, 'a summary is no longer dropped');
      const thought = thoughtOf(family, prompt);
      const [reasoning, message] = response.output;
      assert.match(reasoning!.id!, /^rs_/);
      assert.deepEqual(reasoning, { id: reasoning!.id, type: 'reasoning', summary: [{ type: 'summary_text', text: thought }] });
      assert.equal(message!.type, 'message');
      assert.equal(message!.id!.slice('msg_'.length), reasoning!.id!.slice('rs_'.length), 'one base for the answer’s items');
      assert.equal(response.output.length, 2);
      assert.deepEqual(response.reasoning, { effort: 'high', summary: 'auto' });
      const expected = expectedOutput(family, thought, response.output_text);
      assert.equal(response.usage!.output_tokens, expected.output);
      assert.equal(response.usage!.output_tokens_details.reasoning_tokens, expected.reasoning);
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(response.usage!), '/v1/responses');
      const stored = await sdk(c).responses.retrieve(response.id);
      assert.deepEqual(stored.output, response.output, 'the stored answer keeps the reasoning item');
    });

    test('openai SDK streamed: the reasoning item’s events in order, closed before the message; response.completed carries it; billed exactly', async () => {
      const c = await tg.customer(CREDIT);
      const prompt = 'Think it through';
      const stream = await sdk(c).responses.create({ model, input: prompt, reasoning: { effort: 'high', summary: 'auto' }, stream: true });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      assertAskedToThink(family, true);
      assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
      assert.deepEqual([...new Set(events.map((e) => e.type))], [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.reasoning_summary_part.added',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.done',
        'response.reasoning_summary_part.done',
        'response.output_item.done',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.completed',
      ]);
      const thought = thoughtOf(family, prompt);
      const deltas = events.filter((e): e is OpenAI.Responses.ResponseReasoningSummaryTextDeltaEvent => e.type === 'response.reasoning_summary_text.delta');
      assert.ok(deltas.length > 1, 'the thinking streamed in pieces');
      assert.equal(deltas.map((e) => e.delta).join(''), thought);
      const reasoningEvents = events.filter((e) => e.type.startsWith('response.reasoning_summary')) as Array<{ item_id: string; output_index: number; summary_index: number }>;
      const added = events[2] as OpenAI.Responses.ResponseOutputItemAddedEvent;
      assert.deepEqual(added.item, { id: added.item.id, type: 'reasoning', summary: [] });
      for (const e of reasoningEvents) assert.deepEqual([e.item_id, e.output_index, e.summary_index], [added.item.id, 0, 0]);
      const lastReasoning = events.findLastIndex((e) => e.type.startsWith('response.reasoning_summary'));
      const reasoningDone = events.findIndex((e) => e.type === 'response.output_item.done');
      const messageAdded = events.findLastIndex((e) => e.type === 'response.output_item.added');
      assert.ok(lastReasoning < reasoningDone && reasoningDone < messageAdded, 'the reasoning item is closed before the message opens');
      assert.equal((events[messageAdded] as OpenAI.Responses.ResponseOutputItemAddedEvent).output_index, 1);
      const completed = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
      assert.deepEqual(completed.output[0], { id: added.item.id, type: 'reasoning', summary: [{ type: 'summary_text', text: thought }] });
      assert.deepEqual((events[reasoningDone] as OpenAI.Responses.ResponseOutputItemDoneEvent).item, completed.output[0]);
      const expected = expectedOutput(family, thought, completed.output_text ?? (completed.output[1] as OpenAI.Responses.ResponseOutputMessage).content.map((p) => (p as OpenAI.Responses.ResponseOutputText).text).join(''));
      assert.equal(completed.usage!.output_tokens, expected.output);
      assert.equal(completed.usage!.output_tokens_details.reasoning_tokens, expected.reasoning);
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(completed.usage!), '/v1/responses');
      // the SDK's own accumulator (which checks each item's identity against response.completed) agrees
      const final = await sdk(c).responses.stream({ model, input: prompt, reasoning: { effort: 'high', summary: 'auto' } }).finalResponse();
      assert.deepEqual((final.output[0] as OpenAI.Responses.ResponseReasoningItem).summary, [{ type: 'summary_text', text: thought }]);
      await tg.assertBillingInvariants(c.accountId);
    });

    test('no summary asked: no reasoning item (the thinking still billed as output)', async () => {
      const c = await tg.customer(CREDIT);
      const prompt = 'Think quietly';
      for (const stream of [false, true]) {
        const response = stream
          ? await sdk(c).responses.stream({ model, input: prompt, reasoning: { effort: 'high' } }).finalResponse()
          : await sdk(c).responses.create({ model, input: prompt, reasoning: { effort: 'high' } });
        assertAskedToThink(family, false);
        assert.deepEqual(response.output.map((item) => item.type), ['message']);
        const expected = expectedOutput(family, thoughtOf(family, prompt), response.output_text);
        assert.equal(response.usage!.output_tokens, expected.output);
      }
      await tg.assertBillingInvariants(c.accountId);
    });

    test('previous_response_id after a reasoning answer: the stored reasoning item is not sent on; the conversation continues', async () => {
      const c = await tg.customer(CREDIT);
      const first = await sdk(c).responses.create({ model, input: 'My name is Ada', reasoning: { effort: 'high', summary: 'detailed' } });
      assert.equal(first.output[0]!.type, 'reasoning');
      const second = await sdk(c).responses.create({ model, input: 'What is my name?', previous_response_id: first.id, reasoning: { effort: 'high', summary: 'concise' } });
      assert.equal(second.status, 'completed');
      const sent = JSON.stringify(upstreamBody(family));
      assert.ok(sent.includes('My name is Ada'));
      assert.ok(!sent.includes(thoughtOf(family, 'My name is Ada')), 'the earlier reasoning text is not sent upstream');
      assert.deepEqual((second.output[0] as OpenAI.Responses.ResponseReasoningItem).summary, [{ type: 'summary_text', text: thoughtOf(family, 'What is my name?') }]);
      await tg.assertBillingInvariants(c.accountId);
    });
  });
}

describe('Responses reasoning: a summary value the API does not know', () => {
  test('400 in the OpenAI envelope naming reasoning.summary, nothing sent upstream, nothing charged', async () => {
    const c = await tg.customer(CREDIT);
    const gemini = upstreams.get('gemini')!;
    gemini.reset();
    const error = await sdk(c)
      .responses.create({ model: CHAT_MODEL.gemini, input: 'x', reasoning: { summary: 'verbose' as 'auto' } })
      .then(() => undefined, (err: unknown) => err);
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal((error.error as { param: string }).param, 'reasoning.summary');
    assert.equal(gemini.requests.length, 0);
    await tg.assertBillingInvariants(c.accountId);
  });
});

describe('Vercel AI SDK reads the reasoning (Gemini, Anthropic)', () => {
  const options = { openai: { reasoningEffort: 'high', reasoningSummary: 'auto', forceReasoning: true } };

  test('generateText and streamText: the thought summary is the reasoning text (Gemini)', async () => {
    const c = await tg.customer(CREDIT);
    const provider = createOpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1` });
    const generated = await generateText({ model: provider.responses(CHAT_MODEL.gemini), prompt: 'Reason for the AI SDK', providerOptions: options, maxRetries: 0 });
    assert.equal(generated.reasoningText, thoughtOf('gemini', 'Reason for the AI SDK'));
    assert.match(generated.text, /^Echo: Reason for the AI SDK \|/);
    assert.equal(generated.usage.outputTokenDetails.reasoningTokens, GEMINI_THOUGHT_TOKENS);

    const streamed = streamText({ model: provider.responses(CHAT_MODEL.gemini), prompt: 'Stream a reason', providerOptions: options, maxRetries: 0 });
    let reasoning = '';
    let text = '';
    const order: string[] = [];
    for await (const part of streamed.fullStream) {
      if (part.type === 'reasoning-delta') reasoning += part.text;
      if (part.type === 'text-delta') text += part.text;
      if (order.at(-1) !== part.type) order.push(part.type);
    }
    assert.equal(reasoning, thoughtOf('gemini', 'Stream a reason'));
    assert.match(text, /^Echo: Stream a reason \|/);
    assert.ok(order.indexOf('reasoning-end') < order.indexOf('text-start'), order.join(','));
    assert.equal(await streamed.reasoningText, reasoning);
    await tg.assertBillingInvariants(c.accountId);
  });

  test('a tool over two steps with Anthropic thinking: the next step references the stored reasoning item (dropped) and is served', async () => {
    const c = await tg.customer(CREDIT);
    const anthropic = upstreams.get('anthropic')!;
    const sentByClient: Array<{ input: Array<{ type?: string; id?: string }> }> = [];
    const recording: typeof fetch = (url, init) => {
      if (typeof init?.body === 'string') sentByClient.push(JSON.parse(init.body));
      return fetch(url, init);
    };
    const provider = createOpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1`, fetch: recording });
    const weather = tool({
      description: 'Weather in a city',
      inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    anthropic.reset();
    const result = await generateText({ model: provider.responses(CHAT_MODEL.anthropic), prompt: 'Weather in Paris?', tools: { weather }, stopWhen: isStepCount(2), providerOptions: options, maxRetries: 0 });
    assert.equal(result.steps.length, 2);
    assert.equal(result.steps[0]!.reasoningText, thoughtOf('anthropic', 'Weather in Paris?'));
    assert.equal(result.steps[0]!.toolCalls[0]?.toolName, 'weather');
    assert.match(result.text, /Tool result: /);
    const secondRequest = sentByClient[1]!;
    assert.ok(secondRequest.input.some((item) => item.type === 'item_reference' && item.id?.startsWith('rs_')), JSON.stringify(secondRequest.input));
    // the thinking block went back to Anthropic (inside the call id), signed, in front of the tool use
    const sent = anthropic.requests.at(-1)!.body as { messages: Array<{ role: string; content: Array<{ type: string }> }> };
    const assistant = sent.messages.find((m) => m.role === 'assistant')!;
    assert.equal(assistant.content[0]!.type, 'thinking');
    await tg.assertBillingInvariants(c.accountId);
  });
});
