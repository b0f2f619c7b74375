// The model's reasoning text through the Google and messages dialects, with the official clients:
// @google/genai with thinkingConfig.includeThoughts on a Claude model (thought parts carry the
// Anthropic simulator's thinking text, before the answer, streamed and not; none unless asked), and
// the Anthropic SDK with thinking on a Gemini model (a thinking block with the Gemini simulator's
// thought summary, unsigned; sent back, it is dropped on the way to Gemini and to Claude alike).
// Also Google's stream details: usageMetadata in every chunk, and the JSON-array stream sent as JSON.
// Billing exact after each answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, ThinkingLevel, type GenerateContentResponse, type GenerateContentResponseUsageMetadata } from '@google/genai';
import { assertChargedExactly } from '../helpers/billing.ts';
import { addFamilyProvider, CHAT_MODEL, FAMILIES, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

let tg: TestGateway;
const upstreams: FamilyUpstream[] = [];
const CREDIT = 5;
const START = CREDIT * 1e9;
const CLAUDE = CHAT_MODEL.anthropic;
const GEMINI = CHAT_MODEL.gemini;

before(async () => {
  tg = await startTestGateway({ simulator: false });
  for (const family of FAMILIES) upstreams.push(await addFamilyProvider(tg, family));
});
after(async () => {
  await tg.close();
  for (const upstream of upstreams) await upstream.close();
});

const upstream = (family: string) => upstreams.find((u) => u.family === family)!;
/** The simulators' reasoning for a prompt (simulators/anthropic/reply.ts, simulators/gemini/reply.ts). */
const claudeThinking = (prompt: string) => `Thinking about: ${prompt}.`;
const geminiThought = (prompt: string) => `Thinking about: ${prompt}. Answering plainly.`;

describe('@google/genai → a Claude model: includeThoughts', () => {
  const google = (c: Customer) => new GoogleGenAI({ apiKey: c.key, httpOptions: { baseUrl: tg.origin, apiVersion: 'v1beta' } });
  const usageOf = (u: GenerateContentResponseUsageMetadata | undefined) => ({ prompt: u?.promptTokenCount ?? 0, completion: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0) });
  const parts = (response: GenerateContentResponse) => response.candidates?.[0]?.content?.parts ?? [];
  const PROMPT = 'Why is the sky blue?';
  const THOUGHTS = { thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.LOW } };

  test('generateContent: the thinking text as a thought part before the answer; billed exactly', async () => {
    const c = await tg.customer(CREDIT);
    const response = await google(c).models.generateContent({ model: CLAUDE, contents: PROMPT, config: THOUGHTS });
    const [thought, answer, ...rest] = parts(response);
    assert.deepEqual(thought, { text: claudeThinking(PROMPT), thought: true });
    assert.match(answer?.text ?? '', /^Echo: Why is the sky blue\?/);
    assert.equal(answer?.thought, undefined);
    assert.equal(rest.length, 0);
    // the SDK's .text leaves thoughts out, as it does for Gemini's
    assert.equal(response.text, answer?.text);
    assert.equal((upstream('anthropic').requests.at(-1)!.body as { thinking?: { type: string } }).thinking?.type, 'adaptive');
    await assertChargedExactly(tg, c.accountId, START, CLAUDE, usageOf(response.usageMetadata), '/v1beta/models/{model}:generateContent');
  });

  test('without includeThoughts Claude still thinks (billed) but no thought part is written, as Gemini does', async () => {
    const c = await tg.customer(CREDIT);
    const response = await google(c).models.generateContent({ model: CLAUDE, contents: PROMPT, config: { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } } });
    assert.equal((upstream('anthropic').requests.at(-1)!.body as { thinking?: { type: string } }).thinking?.type, 'adaptive');
    assert.deepEqual(parts(response).map((p) => p.thought ?? false), [false]);
    await assertChargedExactly(tg, c.accountId, START, CLAUDE, usageOf(response.usageMetadata), '/v1beta/models/{model}:generateContent');
  });

  test('generateContentStream: thought parts first, then the answer; usageMetadata in every chunk, the last one exact', async () => {
    const c = await tg.customer(CREDIT);
    const whole = await google(c).models.generateContent({ model: CLAUDE, contents: PROMPT, config: THOUGHTS });
    const d = await tg.customer(CREDIT);
    let thoughts = '';
    let text = '';
    let answered = false;
    const usages: Array<GenerateContentResponseUsageMetadata | undefined> = [];
    for await (const chunk of await google(d).models.generateContentStream({ model: CLAUDE, contents: PROMPT, config: THOUGHTS })) {
      usages.push(chunk.usageMetadata);
      for (const part of parts(chunk)) {
        if (part.thought) {
          assert.ok(!answered, 'no thought after the answer began');
          thoughts += part.text ?? '';
        } else if (part.text) {
          answered = true;
          text += part.text;
        }
      }
    }
    assert.equal(thoughts, claudeThinking(PROMPT));
    assert.equal(text, whole.text);
    assert.ok(usages.length > 3, `${usages.length} chunks`);
    const last = usages.at(-1)!;
    // Claude reports the prompt at message_start: every chunk says it, as Gemini's running totals do
    for (const usage of usages) assert.equal(usage?.promptTokenCount, last.promptTokenCount);
    assert.deepEqual(last, whole.usageMetadata);
    await assertChargedExactly(tg, d.accountId, START, CLAUDE, usageOf(last), '/v1beta/models/{model}:streamGenerateContent');
  });
});

describe('Google streams through the IR', () => {
  const post = (c: Customer, model: string, query: string) =>
    fetch(`${tg.origin}/v1beta/models/${model}:streamGenerateContent${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': c.key },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'array please' }] }], generationConfig: { thinkingConfig: { includeThoughts: true } } }),
    });
  type Chunk = { candidates: Array<{ content: { parts: Array<{ text?: string; thought?: boolean }> }; finishReason?: string }>; usageMetadata?: GenerateContentResponseUsageMetadata };

  for (const family of FAMILIES) {
    test(`${family}: the JSON-array stream (no alt) is sent as application/json, one array of responses`, async () => {
      const c = await tg.customer(CREDIT);
      const res = await post(c, CHAT_MODEL[family], '');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const chunks = JSON.parse(await res.text()) as Chunk[];
      assert.equal(chunks.at(-1)!.candidates[0]!.finishReason, 'STOP');
      const answer = chunks.flatMap((chunk) => chunk.candidates[0]!.content.parts.filter((p) => !p.thought).map((p) => p.text ?? '')).join('');
      assert.match(answer, /^Echo: array please/);
      const last = chunks.at(-1)!.usageMetadata!;
      assert.ok(last.promptTokenCount! > 0);
      if (family !== 'openai') {
        // the vendor reported usage before its end (Claude at message_start, Gemini in every chunk): every chunk carries it
        for (const chunk of chunks) assert.equal(chunk.usageMetadata?.promptTokenCount, last.promptTokenCount, JSON.stringify(chunk));
      }
      if (family === 'gemini') assert.equal(chunks.flatMap((chunk) => chunk.candidates[0]!.content.parts.filter((p) => p.thought).map((p) => p.text)).join(''), geminiThought('array please'));
      await assertChargedExactly(tg, c.accountId, START, CHAT_MODEL[family], { prompt: last.promptTokenCount!, completion: (last.candidatesTokenCount ?? 0) + (last.thoughtsTokenCount ?? 0) }, '/v1beta/models/{model}:streamGenerateContent');
    });
  }

  test('?alt=sse keeps text/event-stream', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c, CLAUDE, '?alt=sse');
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    await res.text();
  });
});

describe('Anthropic SDK → a Gemini model: thinking', () => {
  const sdk = (c: Customer) => new Anthropic({ apiKey: c.key, baseURL: tg.origin, maxRetries: 0 });
  const usageOf = (u: Anthropic.Usage) => ({ prompt: u.input_tokens + (u.cache_read_input_tokens ?? 0), completion: u.output_tokens, cached: u.cache_read_input_tokens ?? 0 });
  const PROMPT = 'Plan a picnic';
  const THINKING = { type: 'adaptive' } as const;

  test('messages.create: a thinking block with the Gemini thought summary, unsigned, before the text; thoughts billed in output_tokens', async () => {
    const c = await tg.customer(CREDIT);
    const message = await sdk(c).messages.create({ model: GEMINI, max_tokens: 512, thinking: THINKING, messages: [{ role: 'user', content: PROMPT }] });
    const sent = upstream('gemini').requests.at(-1)!.body as { generationConfig: { thinkingConfig?: { includeThoughts?: boolean } } };
    assert.equal(sent.generationConfig.thinkingConfig?.includeThoughts, true);
    assert.deepEqual(message.content[0], { type: 'thinking', thinking: geminiThought(PROMPT), signature: '' });
    assert.equal(message.content[1]!.type, 'text');
    assert.match((message.content[1] as Anthropic.TextBlock).text, /^Echo: Plan a picnic/);
    assert.equal(message.content.length, 2);
    await assertChargedExactly(tg, c.accountId, START, GEMINI, usageOf(message.usage), '/v1/messages');
  });

  test('without thinking: no thinking block, Gemini not asked for thoughts', async () => {
    const c = await tg.customer(CREDIT);
    const message = await sdk(c).messages.create({ model: GEMINI, max_tokens: 512, messages: [{ role: 'user', content: PROMPT }] });
    assert.deepEqual(message.content.map((b) => b.type), ['text']);
    const sent = upstream('gemini').requests.at(-1)!.body as { generationConfig: { thinkingConfig?: unknown } };
    assert.equal(sent.generationConfig.thinkingConfig, undefined);
  });

  test('messages.stream: thinking_delta events, a signature_delta, then the text; the final message as the non-streamed one', async () => {
    const c = await tg.customer(CREDIT);
    const whole = await sdk(c).messages.create({ model: GEMINI, max_tokens: 512, thinking: THINKING, messages: [{ role: 'user', content: PROMPT }] });
    const d = await tg.customer(CREDIT);
    const stream = sdk(d).messages.stream({ model: GEMINI, max_tokens: 512, thinking: THINKING, messages: [{ role: 'user', content: PROMPT }] });
    let thinking = '';
    const deltas: string[] = [];
    stream.on('thinking', (delta) => (thinking += delta));
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const final = await stream.finalMessage();
    assert.equal(thinking, geminiThought(PROMPT));
    assert.ok(deltas.filter((t) => t === 'thinking_delta').length > 1, 'the thoughts arrive in pieces');
    assert.equal(deltas.indexOf('signature_delta'), deltas.lastIndexOf('thinking_delta') + 1, 'the signature closes the thinking block');
    assert.ok(deltas.indexOf('text_delta') > deltas.indexOf('signature_delta'));
    assert.deepEqual(final.content, whole.content);
    assert.equal(final.usage.output_tokens, whole.usage.output_tokens);
    await assertChargedExactly(tg, d.accountId, START, GEMINI, usageOf(final.usage), '/v1/messages');
  });

  for (const next of [GEMINI, CLAUDE]) {
    test(`the unsigned thinking block sent back in the next turn is dropped on the way to ${next}: 200, never sent upstream`, async () => {
      const c = await tg.customer(CREDIT);
      const first = await sdk(c).messages.create({ model: GEMINI, max_tokens: 512, thinking: THINKING, messages: [{ role: 'user', content: PROMPT }] });
      assert.equal(first.content[0]!.type, 'thinking');
      const family = next === GEMINI ? 'gemini' : 'anthropic';
      const second = await sdk(c).messages.create({
        model: next,
        max_tokens: 512,
        thinking: THINKING,
        messages: [{ role: 'user', content: PROMPT }, { role: 'assistant', content: first.content }, { role: 'user', content: 'And then?' }],
      });
      assert.equal(second.stop_reason, 'end_turn');
      assert.match(JSON.stringify(second.content), /Echo: And then\?/);
      const sent = JSON.stringify(upstream(family).requests.at(-1)!.body);
      assert.ok(!sent.includes(geminiThought(PROMPT)), sent);
      assert.ok(sent.includes('Echo: Plan a picnic'), 'the answer text of the earlier turn goes on');
      await tg.assertBillingInvariants(c.accountId);
    });
  }
});
