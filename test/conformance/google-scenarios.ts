// The conformance scenarios through the Google dialect (POST /v1beta/models/{model}:generateContent
// and :streamGenerateContent?alt=sse), driven by Google's official `@google/genai` client (and raw
// fetch where the exact chunks matter). The gemini family takes its pass-through here (its own wire);
// the others are served through the IR.
import assert from 'node:assert/strict';
import { FunctionCallingConfigMode, GoogleGenAI, ThinkingLevel, type Content, type GenerateContentResponse, type GenerateContentResponseUsageMetadata } from '@google/genai';
import type { SseEvent } from '../../src/core/sse.ts';
import { assertChargedExactly, assertNotCharged, expectedCostNano } from '../helpers/billing.ts';
import type { Customer } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { CREDIT_NANO, ERROR_CLASSES, IMAGE_URL, newCustomer, PNG_BASE64, postSse, type ScenarioContext } from './context.ts';
import type { ScenarioImplementations } from './scenario-list.ts';
import { assertCapSent, assertReasoningSent, assertSchemaSent, CAP, LONG_ANSWER, SCHEMA, SIM_REASONING_TOKENS } from './upstream-settings.ts';

type Json = Record<string, unknown>;

const ENDPOINT = '/v1beta/models/{model}:generateContent';
const STREAM_ENDPOINT = '/v1beta/models/{model}:streamGenerateContent';
const client = (ctx: ScenarioContext, c: Customer) => new GoogleGenAI({ apiKey: c.key, httpOptions: { baseUrl: ctx.tg.origin, apiVersion: 'v1beta' } });
const keyHeader = (c: Customer) => ({ 'x-goog-api-key': c.key });
const streamUrl = (ctx: ScenarioContext, model: string) => `${ctx.tg.origin}/v1beta/models/${model}:streamGenerateContent?alt=sse`;

const TOOLS = [
  {
    functionDeclarations: [
      { name: 'get_weather', description: 'Weather in a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      { name: 'get_time', description: 'Time in a zone', parametersJsonSchema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
    ],
  },
];

/** Google's usage → what the gateway bills: thoughts are completion tokens; there is no field for cache writes. */
const usageOf = (u: GenerateContentResponseUsageMetadata | undefined, cacheWrite = 0) => ({
  prompt: u?.promptTokenCount ?? 0,
  completion: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
  cached: u?.cachedContentTokenCount ?? 0,
  cacheWrite,
});

/** The stream's chunks: each a whole GenerateContentResponse; only the last one carries the finish reason. */
function assertChunks(events: readonly SseEvent[], minChunks = 2, finish = 'STOP'): Json[] {
  // text streams in pieces; a turn of function calls alone may be one chunk (Google sends calls whole)
  assert.ok(events.length >= minChunks, `${events.length} chunks`);
  const bodies = events.map((e) => {
    assert.equal(e.event, undefined, 'Google’s SSE has no event: lines');
    return JSON.parse(e.data) as Json;
  });
  const finishes = bodies.map((b) => ((b.candidates as Json[] | undefined)?.[0]?.finishReason as string | undefined) ?? null);
  assert.ok(finishes.slice(0, -1).every((f) => f === null), `finish only at the end: ${finishes.join(',')}`);
  assert.equal(finishes.at(-1), finish);
  assert.ok(bodies.at(-1)!.usageMetadata, 'the last chunk carries usageMetadata');
  return bodies;
}

const partsOf = (body: Json): Json[] => ((body.candidates as Json[] | undefined)?.[0]?.content as { parts?: Json[] } | undefined)?.parts ?? [];

async function answerTools(ctx: ScenarioContext, c: Customer, question: Content, response: GenerateContentResponse): Promise<void> {
  const calls = response.functionCalls ?? [];
  const next = await client(ctx, c).models.generateContent({
    model: ctx.model,
    contents: [question, response.candidates![0]!.content!, { role: 'user', parts: calls.map((call, i) => ({ functionResponse: { id: call.id, name: call.name!, response: { output: `result-${i}` } } })) }],
    config: { tools: TOOLS },
  });
  assert.match(next.text ?? '', /Tool result/);
  assert.equal(next.candidates?.[0]?.finishReason, 'STOP');
}

/** The gemini family's pass-through relays the vendor's calls, which carry no id (a client pairs results by name and order); the IR gives each its own. */
function assertCallIds(ctx: ScenarioContext, ids: ReadonlyArray<string | undefined>): void {
  if (ctx.family === 'gemini') assert.deepEqual(ids, ids.map(() => undefined), 'the vendor’s calls, as they came');
  else assert.equal(new Set(ids).size, ids.length, 'distinct call ids');
}

function assertCalls(ctx: ScenarioContext, response: GenerateContentResponse, names: string[]): void {
  const calls = response.functionCalls ?? [];
  assert.deepEqual(calls.map((call) => call.name), names);
  assertCallIds(ctx, calls.map((call) => call.id));
  for (const call of calls) assert.equal(typeof call.args, 'object');
}

/** A streamed answer read raw (?alt=sse): the chunks checked; its text and the last chunk's usage. */
async function streamGenerate(ctx: ScenarioContext, c: Customer, text: string, generationConfig: Json, finish = 'STOP'): Promise<{ text: string; usage: GenerateContentResponseUsageMetadata }> {
  const raw = await postSse(streamUrl(ctx, ctx.model), keyHeader(c), { contents: [{ role: 'user', parts: [{ text }] }], generationConfig });
  assert.equal(raw.status, 200);
  const bodies = assertChunks(raw.events, 2, finish);
  return { text: bodies.map((b) => partsOf(b).map((p) => (typeof p.text === 'string' && p.thought !== true ? p.text : '')).join('')).join(''), usage: bodies.at(-1)!.usageMetadata as GenerateContentResponseUsageMetadata };
}

export const googleScenarios: ScenarioImplementations = {
  async text(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.reset();
    const response = await client(ctx, c).models.generateContent({ model: ctx.model, contents: 'conformance text', config: { systemInstruction: 'Be brief.', topK: 7 } });
    assert.match(response.text ?? '', /Echo: conformance text/);
    // the fast path: a Gemini upstream gets the request as it came (topK kept); the IR has no topK
    const sent = JSON.stringify(ctx.upstream.requests.at(-1)!.body);
    assert.equal(sent.includes('"topK":7'), ctx.family === 'gemini', sent);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    assert.equal(response.modelVersion, ctx.model);
    assert.ok(response.responseId);
    assert.ok((response.usageMetadata?.promptTokenCount ?? 0) > 0 && (response.usageMetadata?.candidatesTokenCount ?? 0) > 0);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usageMetadata), ENDPOINT);
  },

  async 'streaming text'(ctx) {
    const c = await newCustomer(ctx);
    const raw = await postSse(streamUrl(ctx, ctx.model), keyHeader(c), { contents: [{ role: 'user', parts: [{ text: 'conformance stream' }] }] });
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    const bodies = assertChunks(raw.events);
    const text = bodies.map((b) => partsOf(b).map((p) => (typeof p.text === 'string' ? p.text : '')).join('')).join('');
    assert.match(text, /^Echo: conformance stream \| this simulated reply says héllo 世界 🙂/);
    for (const b of bodies) if (b.modelVersion !== undefined) assert.equal(b.modelVersion, ctx.model, 'the public model name');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(bodies.at(-1)!.usageMetadata as GenerateContentResponseUsageMetadata), STREAM_ENDPOINT);

    const d = await newCustomer(ctx);
    let streamed = '';
    let last: GenerateContentResponse | undefined;
    for await (const chunk of await client(ctx, d).models.generateContentStream({ model: ctx.model, contents: 'conformance stream' })) {
      streamed += chunk.text ?? '';
      last = chunk;
    }
    assert.equal(streamed, text);
    assert.equal(last?.candidates?.[0]?.finishReason, 'STOP');
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(last?.usageMetadata), STREAM_ENDPOINT);
  },

  async 'tools: one call, then its result'(ctx) {
    const c = await newCustomer(ctx);
    const question: Content = { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] };
    const response = await client(ctx, c).models.generateContent({
      model: ctx.model,
      contents: [question],
      config: { tools: TOOLS, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } } },
    });
    assertCalls(ctx, response, ['get_weather']);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP', 'a function call ends with STOP on Google’s wire');
    await answerTools(ctx, c, question, response);
    assert.equal((await usageRows(ctx.tg, c.accountId)).length, 2);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: parallel calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const question: Content = { role: 'user', parts: [{ text: 'Weather and time, in parallel please.' }] };
    const response = await client(ctx, c).models.generateContent({ model: ctx.model, contents: [question], config: { tools: TOOLS } });
    assertCalls(ctx, response, ['get_weather', 'get_time']);
    await answerTools(ctx, c, question, response);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: streamed calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const question: Content = { role: 'user', parts: [{ text: 'Weather and time, in parallel, streamed.' }] };
    const raw = await postSse(streamUrl(ctx, ctx.model), keyHeader(c), { contents: [question], tools: TOOLS });
    assert.equal(raw.status, 200);
    const bodies = assertChunks(raw.events, 1);
    // Google sends function calls whole (no argument deltas), each a functionCall part
    const calls = bodies.flatMap((b) => partsOf(b).filter((p) => p.functionCall)).map((p) => p.functionCall as { name: string; args: unknown });
    assert.deepEqual(calls.map((call) => call.name), ['get_weather', 'get_time']);
    for (const call of calls) assert.equal(typeof call.args, 'object');

    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await client(ctx, c).models.generateContentStream({ model: ctx.model, contents: [question], config: { tools: TOOLS } })) chunks.push(chunk);
    const gathered = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    const functionCalls = gathered.filter((p) => p.functionCall).map((p) => p.functionCall!);
    assert.deepEqual(functionCalls.map((call) => call.name), ['get_weather', 'get_time']);
    assertCallIds(ctx, functionCalls.map((call) => call.id));
    // the model's turn as the client keeps it (thought signatures ride in the parts), then the results
    const turn: Content = { role: 'model', parts: gathered.filter((p) => p.functionCall || (p.text ?? '') !== '') };
    const next = await client(ctx, c).models.generateContent({
      model: ctx.model,
      contents: [question, turn, { role: 'user', parts: functionCalls.map((call, i) => ({ functionResponse: { id: call.id, name: call.name!, response: { output: `result-${i}` } } })) }],
      config: { tools: TOOLS },
    });
    assert.match(next.text ?? '', /Tool result/);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'multimodal input'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.reset();
    const response = await client(ctx, c).models.generateContent({
      model: ctx.model,
      contents: [
        {
          role: 'user',
          parts: [{ text: 'Describe these images.' }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }, { fileData: { mimeType: 'image/png', fileUri: IMAGE_URL } }],
        },
      ],
    });
    assert.match(response.text ?? '', /Echo: Describe these images/);
    const sent = JSON.stringify(ctx.upstream.requests.at(-1)!.body);
    assert.ok(sent.includes(PNG_BASE64), 'the inline image reached the upstream');
    assert.ok(sent.includes(IMAGE_URL), 'the image URL reached the upstream');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usageMetadata), ENDPOINT);
  },

  async 'usage: cached and cache-write prompt tokens'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue({ kind: 'usage', cachedTokens: 4, cacheWriteTokens: 2 });
    const response = await client(ctx, c).models.generateContent({ model: ctx.model, contents: 'a prompt long enough to have cached parts' });
    assert.equal(response.usageMetadata?.cachedContentTokenCount, 4, 'cached tokens reported');
    // usageMetadata has no field for cache writes: they are in promptTokenCount, billed at their own price
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usageMetadata, ctx.family === 'anthropic' ? 2 : 0), ENDPOINT);
  },

  async 'JSON schema output'(ctx) {
    const config = { responseMimeType: 'application/json', responseJsonSchema: SCHEMA };
    const c = await newCustomer(ctx);
    const response = await client(ctx, c).models.generateContent({ model: ctx.model, contents: 'conformance json', config });
    assertSchemaSent(ctx);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    assert.ok((response.text ?? '') !== '');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usageMetadata), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamGenerate(ctx, d, 'conformance json', config);
    assertSchemaSent(ctx);
    assert.equal(streamed.text, response.text);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), STREAM_ENDPOINT);
  },

  async reasoning(ctx) {
    const c = await newCustomer(ctx);
    const response = await client(ctx, c).models.generateContent({ model: ctx.model, contents: 'conformance reasoning', config: { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } } });
    assertReasoningSent(ctx);
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    assert.match(response.text ?? '', /Echo: conformance reasoning/);
    assert.equal(response.usageMetadata?.thoughtsTokenCount ?? 0, SIM_REASONING_TOKENS[ctx.family], 'thoughts reported apart from the candidates');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usageMetadata), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamGenerate(ctx, d, 'conformance reasoning', { thinkingConfig: { thinkingLevel: 'LOW' } });
    assertReasoningSent(ctx);
    assert.equal(streamed.text, response.text);
    assert.equal(streamed.usage.thoughtsTokenCount ?? 0, SIM_REASONING_TOKENS[ctx.family], 'thoughts reported apart from the candidates');
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), STREAM_ENDPOINT);
  },

  async 'truncation at the output cap'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const response = await client(ctx, c).models.generateContent({ model: ctx.model, contents: 'conformance truncation', config: { maxOutputTokens: CAP } });
    assertCapSent(ctx);
    assert.equal(response.candidates?.[0]?.finishReason, 'MAX_TOKENS');
    assert.ok((response.text ?? '') !== '', 'what was written before the cap is delivered');
    const candidates = response.usageMetadata?.candidatesTokenCount ?? 0;
    assert.ok(candidates === CAP, `${candidates} candidate tokens: billed up to the cap`);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usageMetadata), ENDPOINT);

    const d = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const streamed = await streamGenerate(ctx, d, 'conformance truncation', { maxOutputTokens: CAP }, 'MAX_TOKENS');
    assertCapSent(ctx);
    assert.equal(streamed.text, response.text);
    assert.equal(streamed.usage.candidatesTokenCount, candidates);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), STREAM_ENDPOINT);
  },

  async 'each error class'(ctx) {
    for (const { upstream, client: status } of ERROR_CLASSES) {
      const c = await newCustomer(ctx);
      ctx.upstream.enqueue({ kind: 'status', status: upstream, retryAfterSeconds: 2 });
      const res = await fetch(`${ctx.tg.origin}/v1beta/models/${ctx.model}:generateContent`, {
        method: 'POST',
        headers: { ...keyHeader(c), 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: `fail with ${upstream}` }] }] }),
      });
      assert.equal(res.status, status, `upstream ${upstream}`);
      const body = (await res.json()) as { error: { code: number; status: string; message: string } };
      assert.equal(body.error.code, status, `upstream ${upstream}: Google’s envelope`);
      assert.equal(body.error.status, GOOGLE_STATUS[status], `upstream ${upstream}`);
      assert.equal(typeof body.error.message, 'string');
      if (status === 429) assert.ok(res.headers.get('retry-after'), '429 carries Retry-After');
      await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
    }
  },

  async 'client abort mid-stream'(ctx) {
    const c = await newCustomer(ctx);
    const settled = ctx.tap.next((row) => row.account_id === c.accountId);
    const controller = new AbortController();
    let pieces = 0;
    await assert.rejects(
      (async () => {
        const stream = await client(ctx, c).models.generateContentStream({ model: ctx.slowModel, contents: 'a long story, slowly', config: { abortSignal: controller.signal } });
        for await (const chunk of stream) if ((chunk.text ?? '') !== '' && ++pieces === 4) controller.abort();
      })(),
      (error: Error) => error.name === 'AbortError' || /abort/i.test(String(error)),
    );
    const row = await settled;
    assert.equal(row.status, 499);
    assert.ok(row.completion_tokens > 0, 'the delivered tokens are billed');
    const cost = await expectedCostNano(ctx.tg, ctx.slowModel, { prompt: row.prompt_tokens, completion: row.completion_tokens, cached: row.cached_tokens });
    assert.equal(CREDIT_NANO - ctx.tg.balanceNano(c.accountId), cost);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'upstream cut mid-stream'(ctx) {
    await brokenStream(ctx, { kind: 'cut-stream', afterChunks: 3 }, /^upstream_stream_(truncated|interrupted)$/);
  },

  async 'upstream error event mid-stream'(ctx) {
    await brokenStream(ctx, { kind: 'stream-error', afterChunks: 3 }, /^upstream_stream_error$/);
  },
};

const GOOGLE_STATUS: Readonly<Record<number, string>> = { 400: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 502: 'UNAVAILABLE', 503: 'UNAVAILABLE' };

/** A stream the upstream breaks after it started: text, then Google's error envelope as the last chunk, no finish reason, not charged; the client throws. */
async function brokenStream(ctx: ScenarioContext, scenario: Parameters<ScenarioContext['upstream']['enqueue']>[0], code: RegExp): Promise<void> {
  const c = await newCustomer(ctx);
  ctx.slowUpstream.enqueue(scenario);
  const { status, events } = await postSse(streamUrl(ctx, ctx.slowModel), keyHeader(c), { contents: [{ role: 'user', parts: [{ text: 'break this stream' }] }] });
  assert.equal(status, 200, 'the stream had started');
  const bodies = events.map((e) => JSON.parse(e.data) as Json);
  assert.ok(bodies.slice(0, -1).some((b) => partsOf(b).some((p) => typeof p.text === 'string' && p.text !== '')), 'what came before the break was relayed');
  assert.ok(bodies.every((b) => !(b.candidates as Json[] | undefined)?.some((cand) => cand.finishReason)), 'a broken stream never ends as if complete');
  const error = bodies.at(-1)!.error as { code: number; status: string; message: string } | undefined;
  assert.ok(error, 'the last chunk is Google’s error envelope');
  assert.equal(error.code, 502);
  assert.equal(error.status, 'UNAVAILABLE');
  assert.match(error.message, /upstream|mid-stream/i);
  await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
  const row = (await usageRows(ctx.tg, c.accountId))[0];
  assert.equal(row.status, 502);
  assert.ok(code.test(String(row.error_type)) || row.error_type === 'server_error');

  const d = await newCustomer(ctx);
  ctx.slowUpstream.enqueue(scenario);
  await assert.rejects(async () => {
    for await (const chunk of await client(ctx, d).models.generateContentStream({ model: ctx.slowModel, contents: 'break this stream' })) void chunk;
  });
  await assertNotCharged(ctx.tg, d.accountId, CREDIT_NANO);
}
