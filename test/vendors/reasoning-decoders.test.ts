// The model's reasoning text read by each family's codec (issue 20), over real sockets against the
// family's simulator: Anthropic thinking blocks, Gemini thought parts (asked with includeThoughts
// only when the client set include_reasoning), OpenAI-compatible reasoning_content / reasoning.
// Whole answers give message.reasoning, streams give reasoning-delta parts with the same text,
// and a stream split anywhere decodes to the very same frames.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChatCall, ChatCodec, IrStreamDecoder, TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import type { IrChatRequest, IrCompletion } from '../../src/core/ir/chat.ts';
import type { IrStreamFrame } from '../../src/core/ir/stream.ts';
import { SseDecoder, type SseEvent } from '../../src/core/sse.ts';
import { anthropicChat } from '../../src/vendors/anthropic/chat.ts';
import { convertResponse as anthropicResponse } from '../../src/vendors/anthropic/convert-response.ts';
import { AnthropicStreamDecoder } from '../../src/vendors/anthropic/stream-decoder.ts';
import { packThinking, unpackThinking } from '../../src/vendors/anthropic/thinking-state.ts';
import { geminiChat } from '../../src/vendors/gemini/chat.ts';
import { openaiChat } from '../../src/vendors/openai/chat.ts';
import { completionToIr } from '../../src/vendors/openai/convert-response.ts';
import { OpenAIStreamDecoder } from '../../src/vendors/openai/stream-decoder.ts';
import { createPrng } from '../../simulators/_kit/http.ts';
import { countTokens } from '../../simulators/_kit/text.ts';
import { startAnthropicSimulator } from '../../simulators/anthropic/server.ts';
import { signThinking } from '../../simulators/anthropic/signature.ts';
import { startGeminiSimulator } from '../../simulators/gemini/server.ts';
import { startOpenAISimulator } from '../../simulators/openai/server.ts';

const API_KEY = 'sim-reasoning';
const QUESTION = 'Why is the sky blue? ünïcödé 世界';
const TOOLS: IrChatRequest['tools'] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

interface Upstream {
  baseUrl: string;
  headers: Record<string, string>;
  close(): Promise<void>;
}

const upstreams: Partial<Record<'anthropic' | 'gemini' | 'openai', Upstream>> = {};
before(async () => {
  const anthropic = await startAnthropicSimulator({ apiKey: API_KEY });
  const gemini = await startGeminiSimulator({ apiKey: API_KEY });
  const openai = await startOpenAISimulator({ apiKey: API_KEY });
  upstreams.anthropic = { baseUrl: anthropic.baseUrl, headers: { 'x-api-key': API_KEY }, close: () => anthropic.close() };
  upstreams.gemini = { baseUrl: gemini.baseUrl, headers: { 'x-goog-api-key': API_KEY }, close: () => gemini.close() };
  upstreams.openai = { baseUrl: openai.baseUrl, headers: { authorization: `Bearer ${API_KEY}` }, close: () => openai.close() };
});
after(async () => {
  for (const upstream of Object.values(upstreams)) await upstream.close();
});

const targetOf = (model: string): TargetInfo => ({ providerId: 'p', upstreamModel: model, publicModel: 'public-model' });

function callOf(body: Partial<IrChatRequest>, stream: boolean): ChatCall {
  return { body: { model: 'public-model', messages: [{ role: 'user', content: QUESTION }], stream, ...body }, stream, clientWantsUsage: stream, maxOutputTokens: 4096, created: 1763700000 };
}

/** What the pipeline sends for `call`, sent to the family's simulator: the upstream body and the answer's bytes. */
async function exchange(family: keyof typeof upstreams, codec: ChatCodec, call: ChatCall, target: TargetInfo): Promise<{ sent: Record<string, unknown>; bytes: Uint8Array }> {
  const upstream = upstreams[family]!;
  const request = codec.prepare(call, target);
  const response = await fetch(upstream.baseUrl + request.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...upstream.headers, ...request.headers },
    body: request.body as string,
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  assert.equal(response.status, 200, new TextDecoder().decode(bytes));
  return { sent: JSON.parse(request.body as string) as Record<string, unknown>, bytes };
}

async function whole(family: keyof typeof upstreams, codec: ChatCodec, body: Partial<IrChatRequest>, model: string): Promise<{ sent: Record<string, unknown>; completion: IrCompletion }> {
  const call = callOf(body, false);
  const { sent, bytes } = await exchange(family, codec, call, targetOf(model));
  return { sent, completion: codec.decode(call, targetOf(model), bytes).completion };
}

/** The frames a fresh decoder gives for the bytes cut at `offsets`, fed as the pipeline feeds them. */
function decodeSplit(decoder: IrStreamDecoder, bytes: Uint8Array, offsets: readonly number[]): IrStreamFrame[] {
  const sse = new SseDecoder();
  const frames: IrStreamFrame[] = [];
  let start = 0;
  for (const offset of [...new Set(offsets)].filter((o) => o > 0 && o < bytes.length).sort((a, b) => a - b)) {
    for (const event of sse.push(bytes.subarray(start, offset))) frames.push(...decoder.onEvent(event));
    start = offset;
  }
  for (const event of sse.push(bytes.subarray(start))) frames.push(...decoder.onEvent(event));
  for (const event of sse.end()) frames.push(...decoder.onEvent(event));
  return frames;
}

interface Streamed {
  sent: Record<string, unknown>;
  frames: IrStreamFrame[];
  reasoning: string[];
  text: string;
  toolIds: string[];
}

/** A streamed answer decoded whole, then checked to decode identically at 100 random splits and one byte at a time. */
async function streamed(family: keyof typeof upstreams, codec: ChatCodec, body: Partial<IrChatRequest>, model: string): Promise<Streamed> {
  const call = callOf(body, true);
  const target = targetOf(model);
  const { sent, bytes } = await exchange(family, codec, call, target);
  const decoder = codec.streamDecoder(call, target);
  const frames = decodeSplit(decoder, bytes, []);
  assert.equal(decoder.end().complete, true, 'the stream ended properly');
  const random = createPrng(bytes.length);
  for (let round = 0; round < 100; round++) {
    const cuts = Array.from({ length: 1 + Math.floor(random() * 8) }, () => Math.floor(random() * bytes.length));
    assert.deepEqual(decodeSplit(codec.streamDecoder(call, target), bytes, cuts), frames, `split at ${cuts.join(',')}`);
  }
  assert.deepEqual(decodeSplit(codec.streamDecoder(call, target), bytes, Array.from({ length: bytes.length }, (_, i) => i)), frames, 'one byte at a time');
  const parts = frames.flat();
  return {
    sent,
    frames,
    reasoning: parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.text] : [])),
    text: parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join(''),
    toolIds: parts.flatMap((p) => (p.type === 'tool-call-start' && p.id !== undefined ? [p.id] : [])),
  };
}

/** Every reasoning piece comes before the first piece of answer text. */
function reasoningFirst(frames: IrStreamFrame[]): void {
  const parts = frames.flat();
  const lastReasoning = parts.findLastIndex((p) => p.type === 'reasoning-delta');
  const firstText = parts.findIndex((p) => p.type === 'text-delta' && p.text !== '');
  assert.ok(firstText < 0 || lastReasoning < firstText, 'reasoning precedes the answer');
}

describe('Anthropic thinking → reasoning', () => {
  const model = 'claude-sonnet-5';

  test('a thinking answer: message.reasoning whole, the same text in several reasoning deltas streamed', async () => {
    const { completion } = await whole('anthropic', anthropicChat, { reasoning_effort: 'medium' }, model);
    const expected = `Thinking about: ${QUESTION}.`;
    assert.equal(completion.choices[0]!.message.reasoning, expected);
    assert.match(completion.choices[0]!.message.content!, /^Echo: /, 'the answer text is not mixed with it');
    const stream = await streamed('anthropic', anthropicChat, { reasoning_effort: 'medium' }, model);
    assert.ok(stream.reasoning.length > 1, 'streamed in pieces as thinking_delta arrives');
    assert.equal(stream.reasoning.join(''), expected);
    assert.equal(stream.text, completion.choices[0]!.message.content);
    reasoningFirst(stream.frames);
  });

  test('without thinking there is no reasoning', async () => {
    const { completion } = await whole('anthropic', anthropicChat, {}, model);
    assert.equal('reasoning' in completion.choices[0]!.message, false);
    assert.deepEqual((await streamed('anthropic', anthropicChat, {}, model)).reasoning, []);
  });

  test('thinking before a tool use still rides in the tool call id, signature and all, and the vendor takes it back', async () => {
    for (const stream of [false, true]) {
      const body: Partial<IrChatRequest> = { reasoning_effort: 'medium', tools: TOOLS };
      const { reasoning, id } = stream
        ? await streamed('anthropic', anthropicChat, body, model).then((s) => ({ reasoning: s.reasoning.join(''), id: s.toolIds[0]! }))
        : await whole('anthropic', anthropicChat, body, model).then(({ completion }) => ({ reasoning: completion.choices[0]!.message.reasoning, id: completion.choices[0]!.message.tool_calls![0]!.id }));
      const { id: vendorId, blocks } = unpackThinking(id);
      assert.match(vendorId, /^toolu_/);
      assert.deepEqual(blocks, [{ type: 'thinking', thinking: reasoning, signature: signThinking(reasoning!) }]);
      assert.equal(id, packThinking(vendorId, blocks), 'packed exactly as before');
      // the next turn: the simulator refuses a tool-use turn whose thinking block is missing or altered
      const next = await whole(
        'anthropic',
        anthropicChat,
        { reasoning_effort: 'medium', tools: TOOLS, messages: [{ role: 'user', content: QUESTION }, { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }, { role: 'tool', tool_call_id: id, content: '21C' }] },
        model,
      );
      assert.match(next.completion.choices[0]!.message.content!, /^Tool result: /, `stream ${stream}`);
    }
  });

  test('whole answers: thinking blocks concatenated in order, redacted thinking has no text but is still packed', () => {
    const blocks = [
      { type: 'thinking' as const, thinking: 'First, ', signature: 's1' },
      { type: 'redacted_thinking' as const, data: 'opaque' },
      { type: 'thinking' as const, thinking: 'then ünï.', signature: 's2' },
    ];
    const ir = anthropicResponse({ content: [...blocks, { type: 'text', text: 'Hi' }, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }], stop_reason: 'tool_use' }, targetOf(model), 0);
    const message = ir.choices[0]!.message;
    assert.equal(message.reasoning, 'First, then ünï.');
    assert.equal(message.tool_calls![0]!.id, packThinking('toolu_1', blocks));
    assert.equal(anthropicResponse({ content: [{ type: 'redacted_thinking', data: 'x' }, { type: 'text', text: 'Hi' }] }, targetOf(model), 0).choices[0]!.message.reasoning, undefined);
  });

  test('streams: a redacted block gives no delta; a thinking block opened with text gives it first', () => {
    const decoder = new AnthropicStreamDecoder(targetOf(model), 0);
    const event = (type: string, data: unknown): SseEvent => ({ event: type, data: JSON.stringify(data), id: '' });
    const frames = [
      event('message_start', { message: { id: 'msg_1', usage: { input_tokens: 1 } } }),
      event('content_block_start', { index: 0, content_block: { type: 'redacted_thinking', data: 'opaque' } }),
      event('content_block_stop', { index: 0 }),
      event('content_block_start', { index: 1, content_block: { type: 'thinking', thinking: 'Hm, ', signature: '' } }),
      event('content_block_delta', { index: 1, delta: { type: 'thinking_delta', thinking: 'yes.' } }),
      event('content_block_delta', { index: 1, delta: { type: 'thinking_delta', thinking: '' } }),
      event('content_block_delta', { index: 1, delta: { type: 'signature_delta', signature: 'sig' } }),
      event('content_block_stop', { index: 1 }),
      event('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'toolu_9', name: 'f', input: {} } }),
    ].flatMap((e) => decoder.onEvent(e));
    const parts = frames.flat();
    assert.deepEqual(parts.filter((p) => p.type === 'reasoning-delta'), [
      { type: 'reasoning-delta', choice: 0, text: 'Hm, ' },
      { type: 'reasoning-delta', choice: 0, text: 'yes.' },
    ]);
    const start = parts.find((p) => p.type === 'tool-call-start');
    assert.equal(start?.type === 'tool-call-start' && start.id, packThinking('toolu_9', [{ type: 'redacted_thinking', data: 'opaque' }, { type: 'thinking', thinking: 'Hm, yes.', signature: 'sig' }]));
  });
});

describe('Gemini thought parts → reasoning', () => {
  const model = 'gemini-3-flash-preview';

  test('include_reasoning asks for includeThoughts, merged with the thinking reasoning_effort gives; never otherwise', () => {
    const config = (body: Partial<IrChatRequest>, upstream = model) =>
      (JSON.parse(geminiChat.prepare(callOf(body, false), targetOf(upstream)).body as string) as { generationConfig: Record<string, unknown> }).generationConfig.thinkingConfig;
    assert.deepEqual(config({ include_reasoning: true }), { includeThoughts: true });
    assert.deepEqual(config({ include_reasoning: true, reasoning_effort: 'high' }), { thinkingLevel: 'HIGH', includeThoughts: true });
    assert.deepEqual(config({ include_reasoning: true, reasoning_effort: 'medium' }, 'gemini-2.5-flash'), { thinkingBudget: 8192, includeThoughts: true });
    assert.deepEqual(config({ reasoning_effort: 'high' }), { thinkingLevel: 'HIGH' });
    assert.deepEqual(config({ include_reasoning: false, reasoning_effort: 'low' }, 'gemini-2.5-flash'), { thinkingBudget: 1024 });
    assert.equal(config({ include_reasoning: null }), undefined);
    assert.equal(config({}), undefined);
    const sent = geminiChat.prepare(callOf({ include_reasoning: true }, true), targetOf(model)).body as string;
    assert.ok(!sent.includes('include_reasoning'), 'the gateway’s own field never goes upstream');
  });

  test('with include_reasoning: the thought text whole and streamed in pieces, thoughts billed as before', async () => {
    const body: Partial<IrChatRequest> = { include_reasoning: true, reasoning_effort: 'low' };
    const { sent, completion } = await whole('gemini', geminiChat, body, model);
    assert.deepEqual((sent.generationConfig as Record<string, unknown>).thinkingConfig, { thinkingLevel: 'LOW', includeThoughts: true });
    const message = completion.choices[0]!.message;
    assert.equal(message.reasoning, `Thinking about: ${QUESTION}. Answering plainly.`);
    assert.match(message.content!, /^Echo: /, 'the thoughts are not answer text');
    assert.equal(completion.usage!.completion_tokens_details!.reasoning_tokens, 12);
    const stream = await streamed('gemini', geminiChat, body, model);
    assert.ok(stream.reasoning.length > 1, 'streamed in pieces');
    assert.equal(stream.reasoning.join(''), message.reasoning);
    assert.equal(stream.text, message.content);
    reasoningFirst(stream.frames);
  });

  test('without include_reasoning the vendor shows no thoughts (thinking still billed)', async () => {
    const { completion } = await whole('gemini', geminiChat, { reasoning_effort: 'low' }, model);
    assert.equal('reasoning' in completion.choices[0]!.message, false);
    assert.equal(completion.usage!.completion_tokens_details!.reasoning_tokens, 12);
    assert.deepEqual((await streamed('gemini', geminiChat, { reasoning_effort: 'low' }, model)).reasoning, []);
  });

  test('thoughts before a function call: reasoning beside the call, whose signature still goes back', async () => {
    const body: Partial<IrChatRequest> = { include_reasoning: true, tools: TOOLS };
    const { completion } = await whole('gemini', geminiChat, body, model);
    const message = completion.choices[0]!.message;
    assert.equal(message.reasoning, `Thinking about: ${QUESTION}. Answering plainly.`);
    const stream = await streamed('gemini', geminiChat, body, model);
    assert.equal(stream.reasoning.join(''), message.reasoning);
    assert.equal(stream.toolIds.length, 1);
    // Gemini 3 refuses the next turn when the call comes back without its thought signature
    const call = message.tool_calls![0]!;
    const next = await whole('gemini', geminiChat, { ...body, messages: [{ role: 'user', content: QUESTION }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '21C' }] }, model);
    assert.match(next.completion.choices[0]!.message.content!, /^Tool result: /);
  });
});

describe('OpenAI-compatible reasoning_content / reasoning → reasoning', () => {
  test('a DeepSeek-like model thinks aloud: reasoning_content whole and streamed, billed as reasoning tokens', async () => {
    const model = 'deepseek-reasoner';
    const { completion } = await whole('openai', openaiChat, {}, model);
    const message = completion.choices[0]!.message;
    assert.equal(message.reasoning, `Reasoning about: ${QUESTION}. The answer follows.`);
    assert.match(message.content!, /^Echo: /);
    assert.equal(completion.usage!.completion_tokens_details?.reasoning_tokens, countTokens(message.reasoning!), 'the reasoning text is what is billed as reasoning');
    const stream = await streamed('openai', openaiChat, {}, model);
    assert.ok(stream.reasoning.length > 1, 'streamed in pieces');
    assert.equal(stream.reasoning.join(''), message.reasoning);
    assert.equal(stream.text, message.content);
    reasoningFirst(stream.frames);
  });

  test('OpenAI’s own models send none', async () => {
    const { completion } = await whole('openai', openaiChat, {}, 'gpt-4o-mini');
    assert.equal('reasoning' in completion.choices[0]!.message, false);
    assert.equal(completion.usage!.completion_tokens_details!.reasoning_tokens, 0);
    assert.deepEqual((await streamed('openai', openaiChat, {}, 'gpt-4o-mini')).reasoning, []);
  });

  test('OpenRouter’s string reasoning is read too; reasoning_content wins when a server writes both; other shapes are not text', () => {
    const target = targetOf('m');
    const message = (fields: Record<string, unknown>) => completionToIr({ choices: [{ message: { role: 'assistant', content: 'A', ...fields }, finish_reason: 'stop' }] }, target, 0).choices[0]!.message.reasoning;
    assert.equal(message({ reasoning: 'why' }), 'why');
    assert.equal(message({ reasoning_content: 'why', reasoning: 'why' }), 'why');
    assert.equal(message({ reasoning_content: null, reasoning: 'why' }), 'why');
    assert.equal(message({ reasoning: { effort: 'high' } }), undefined);
    assert.equal(message({ reasoning_content: '' }), undefined);
    const decoder = new OpenAIStreamDecoder(target, 0);
    const chunk = (delta: Record<string, unknown>): SseEvent => ({ event: undefined, id: '', data: JSON.stringify({ id: 'c', created: 1, choices: [{ index: 0, delta }] }) });
    const parts = [chunk({ role: 'assistant', reasoning: 'wh' }), chunk({ reasoning_content: 'y', reasoning: 'y' }), chunk({ reasoning: null, content: 'A' }), chunk({ reasoning: '', content: '!' })]
      .flatMap((e) => decoder.onEvent(e))
      .flat()
      .filter((p) => p.type === 'reasoning-delta' || p.type === 'text-delta');
    assert.deepEqual(parts, [
      { type: 'reasoning-delta', choice: 0, text: 'wh' },
      { type: 'reasoning-delta', choice: 0, text: 'y' },
      { type: 'text-delta', choice: 0, text: 'A' },
      { type: 'text-delta', choice: 0, text: '!' },
    ]);
  });
});
