// The conformance scenarios through chat completions, driven by the official `openai` client
// (and raw fetch where the exact event sequence matters).
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { assertChargedExactly, assertNotCharged, expectedCostNano } from '../helpers/billing.ts';
import type { Customer } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { CREDIT_NANO, ERROR_CLASSES, IMAGE_URL, newCustomer, PNG_BASE64, postSse, type ScenarioContext } from './context.ts';
import type { ScenarioImplementations } from './scenario-list.ts';
import { assertCapSent, assertReasoningSent, assertSchemaSent, CAP, LONG_ANSWER, SCHEMA, SIM_REASONING_TOKENS } from './upstream-settings.ts';

const ENDPOINT = '/v1/chat/completions';
const client = (ctx: ScenarioContext, c: Customer) => new OpenAI({ apiKey: c.key, baseURL: ctx.tg.baseURL, maxRetries: 0 });

export const TOOLS: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } },
];

const usageOf = (u: OpenAI.CompletionUsage) => ({
  prompt: u.prompt_tokens,
  completion: u.completion_tokens,
  cached: u.prompt_tokens_details?.cached_tokens ?? 0,
  cacheWrite: (u.prompt_tokens_details as { cache_write_tokens?: number } | undefined)?.cache_write_tokens ?? 0,
});

/** Sends a tool turn back with one result per call and expects the model to read them. */
async function answerTools(ctx: ScenarioContext, c: Customer, history: ChatCompletionMessageParam[], message: OpenAI.ChatCompletionMessage): Promise<void> {
  const calls = message.tool_calls ?? [];
  const results: ChatCompletionMessageParam[] = calls.map((call, i) => ({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ answer: `result-${i}` }) }));
  const next = await client(ctx, c).chat.completions.create({ model: ctx.model, tools: TOOLS, messages: [...history, message as ChatCompletionMessageParam, ...results] });
  assert.match(next.choices[0]!.message.content ?? '', /Tool result/);
  assert.equal(next.choices[0]!.finish_reason, 'stop');
}

function assertToolCalls(message: OpenAI.ChatCompletionMessage, names: string[]): void {
  const calls = message.tool_calls ?? [];
  assert.deepEqual(calls.map((c) => (c.type === 'function' ? c.function.name : c.type)), names);
  assert.equal(new Set(calls.map((c) => c.id)).size, calls.length, 'distinct ids');
  for (const call of calls) {
    assert.equal(call.type, 'function');
    if (call.type === 'function') assert.equal(typeof JSON.parse(call.function.arguments), 'object');
  }
}

/** A streamed completion read raw (usage included): its text, finish reasons and usage. */
async function streamChat(ctx: ScenarioContext, c: Customer, body: Record<string, unknown>): Promise<{ text: string; reasoning: string; finishes: string[]; usage: OpenAI.CompletionUsage }> {
  const { status, events } = await postSse(`${ctx.tg.baseURL}/chat/completions`, { authorization: `Bearer ${c.key}` }, { model: ctx.model, stream: true, stream_options: { include_usage: true }, ...body });
  assert.equal(status, 200);
  assert.equal(events.at(-1)!.data, '[DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as ChatCompletionChunk);
  return {
    text: chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join(''),
    reasoning: chunks.map((ch) => (ch.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '').join(''),
    finishes: chunks.flatMap((ch) => ch.choices.map((x) => x.finish_reason)).filter((f): f is NonNullable<typeof f> => f !== null),
    usage: chunks.at(-1)!.usage!,
  };
}

const RESPONSE_FORMAT = { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema: SCHEMA as unknown as Record<string, unknown> } } as const;

export const chatScenarios: ScenarioImplementations = {
  async text(ctx) {
    const c = await newCustomer(ctx);
    const reply = await client(ctx, c).chat.completions.create({ model: ctx.model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'conformance text' }] });
    assert.equal(reply.object, 'chat.completion');
    assert.equal(reply.model, ctx.model);
    assert.match(reply.choices[0]!.message.content ?? '', /Echo: conformance text/);
    assert.equal(reply.choices[0]!.message.role, 'assistant');
    assert.equal(reply.choices[0]!.finish_reason, 'stop');
    assert.ok(reply.usage!.prompt_tokens > 0 && reply.usage!.completion_tokens > 0);
    assert.equal(reply.usage!.total_tokens, reply.usage!.prompt_tokens + reply.usage!.completion_tokens);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(reply.usage!), ENDPOINT);
  },

  async 'streaming text'(ctx) {
    const c = await newCustomer(ctx);
    const { status, headers, events } = await postSse(`${ctx.tg.baseURL}/chat/completions`, { authorization: `Bearer ${c.key}` }, {
      model: ctx.model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'conformance stream' }],
    });
    assert.equal(status, 200);
    assert.match(headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.ok(events.every((e) => e.event === undefined), 'no event: lines in chat streams');
    assert.equal(events.at(-1)!.data, '[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as ChatCompletionChunk);
    assert.equal(chunks[0]!.choices[0]!.delta.role, 'assistant', 'the first chunk carries the role');
    assert.equal(new Set(chunks.map((ch) => ch.id)).size, 1, 'one id for the whole stream');
    assert.ok(chunks.every((ch) => ch.object === 'chat.completion.chunk' && ch.model === ctx.model));
    const text = chunks.map((ch) => ch.choices[0]?.delta.content ?? '').join('');
    assert.match(text, /^Echo: conformance stream \| this simulated reply says héllo 世界 🙂/);
    assert.deepEqual(chunks.flatMap((ch) => ch.choices.map((x) => x.finish_reason)).filter(Boolean), ['stop']);
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, [], 'the usage chunk has no choices');
    assert.ok(chunks.slice(0, -1).every((ch) => ch.usage === null), 'usage: null on every other chunk');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(last.usage!), ENDPOINT);
  },

  async 'tools: one call, then its result'(ctx) {
    const c = await newCustomer(ctx);
    const history: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const reply = await client(ctx, c).chat.completions.create({ model: ctx.model, tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_weather' } }, messages: history });
    assert.equal(reply.choices[0]!.finish_reason, 'tool_calls');
    assertToolCalls(reply.choices[0]!.message, ['get_weather']);
    await answerTools(ctx, c, history, reply.choices[0]!.message);
    assert.equal((await usageRows(ctx.tg, c.accountId)).length, 2);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: parallel calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const history: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time, in parallel please.' }];
    const reply = await client(ctx, c).chat.completions.create({ model: ctx.model, tools: TOOLS, messages: history });
    assert.equal(reply.choices[0]!.finish_reason, 'tool_calls');
    assertToolCalls(reply.choices[0]!.message, ['get_weather', 'get_time']);
    await answerTools(ctx, c, history, reply.choices[0]!.message);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: streamed calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const history: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time, in parallel, streamed.' }];
    const raw = await postSse(`${ctx.tg.baseURL}/chat/completions`, { authorization: `Bearer ${c.key}` }, { model: ctx.model, tools: TOOLS, stream: true, messages: history });
    const deltas = raw.events.filter((e) => e.data !== '[DONE]').flatMap((e) => (JSON.parse(e.data) as ChatCompletionChunk).choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    const firsts = new Map<number, (typeof deltas)[number]>();
    for (const d of deltas) if (!firsts.has(d.index)) firsts.set(d.index, d);
    assert.deepEqual([...firsts.keys()], [0, 1], 'tool-call indexes are dense, in order');
    for (const first of firsts.values()) assert.ok(first.id && first.type === 'function' && first.function?.name, 'id, type and name come with the first fragment');

    const stream = client(ctx, c).chat.completions.stream({ model: ctx.model, tools: TOOLS, messages: history });
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    assertToolCalls(final.choices[0]!.message, ['get_weather', 'get_time']);
    await answerTools(ctx, c, history, final.choices[0]!.message);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'multimodal input'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.reset();
    const reply = await client(ctx, c).chat.completions.create({
      model: ctx.model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe these images.' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            { type: 'image_url', image_url: { url: IMAGE_URL } },
          ],
        },
      ],
    });
    assert.match(reply.choices[0]!.message.content ?? '', /Echo: Describe these images/);
    const sent = JSON.stringify(ctx.upstream.requests.at(-1)!.body);
    assert.ok(sent.includes(PNG_BASE64), 'the inline image reached the upstream');
    assert.ok(sent.includes(IMAGE_URL), 'the image URL reached the upstream');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(reply.usage!), ENDPOINT);
  },

  async 'usage: cached and cache-write prompt tokens'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue({ kind: 'usage', cachedTokens: 4, cacheWriteTokens: 2 });
    const reply = await client(ctx, c).chat.completions.create({ model: ctx.model, messages: [{ role: 'user', content: 'a prompt long enough to have cached parts' }] });
    const usage = usageOf(reply.usage!);
    assert.equal(usage.cached, 4, 'cached tokens reported');
    if (ctx.family === 'anthropic') assert.equal(usage.cacheWrite, 2, 'cache writes reported');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usage, ENDPOINT);
  },

  async 'JSON schema output'(ctx) {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'conformance json' }];
    const c = await newCustomer(ctx);
    const reply = await client(ctx, c).chat.completions.create({ model: ctx.model, response_format: RESPONSE_FORMAT, messages });
    assertSchemaSent(ctx);
    assert.equal(reply.choices[0]!.finish_reason, 'stop');
    assert.ok((reply.choices[0]!.message.content ?? '') !== '');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(reply.usage!), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamChat(ctx, d, { response_format: RESPONSE_FORMAT, messages });
    assertSchemaSent(ctx);
    assert.deepEqual(streamed.finishes, ['stop']);
    assert.equal(streamed.text, reply.choices[0]!.message.content);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), ENDPOINT);
  },

  async reasoning(ctx) {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'conformance reasoning' }];
    const c = await newCustomer(ctx);
    const reply = await client(ctx, c).chat.completions.create({ model: ctx.model, reasoning_effort: 'low', messages });
    assertReasoningSent(ctx);
    assert.equal(reply.choices[0]!.finish_reason, 'stop');
    assert.match(reply.choices[0]!.message.content ?? '', /Echo: conformance reasoning/);
    assert.equal(reply.usage!.completion_tokens_details?.reasoning_tokens ?? 0, SIM_REASONING_TOKENS[ctx.family], 'reasoning tokens reported');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(reply.usage!), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamChat(ctx, d, { reasoning_effort: 'low', messages });
    assertReasoningSent(ctx);
    assert.deepEqual(streamed.finishes, ['stop']);
    assert.equal(streamed.text, reply.choices[0]!.message.content);
    // the reasoning text, where the vendor shows it unasked (Anthropic's thinking), in DeepSeek's reasoning_content
    const reasoning = (reply.choices[0]!.message as { reasoning_content?: string }).reasoning_content;
    if (ctx.family === 'anthropic') assert.ok(reasoning && reasoning.length > 0, 'thinking text as reasoning_content');
    else assert.equal(reasoning, undefined);
    assert.equal(streamed.reasoning, reasoning ?? '');
    assert.equal(streamed.usage.completion_tokens_details?.reasoning_tokens ?? 0, SIM_REASONING_TOKENS[ctx.family], 'reasoning tokens reported');
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), ENDPOINT);
  },

  async 'truncation at the output cap'(ctx) {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'conformance truncation' }];
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const reply = await client(ctx, c).chat.completions.create({ model: ctx.model, max_completion_tokens: CAP, messages });
    assertCapSent(ctx);
    assert.equal(reply.choices[0]!.finish_reason, 'length');
    assert.ok((reply.choices[0]!.message.content ?? '') !== '', 'what was written before the cap is delivered');
    assert.ok(reply.usage!.completion_tokens === CAP, `${reply.usage!.completion_tokens} completion tokens: billed up to the cap`);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(reply.usage!), ENDPOINT);

    const d = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const streamed = await streamChat(ctx, d, { max_completion_tokens: CAP, messages });
    assertCapSent(ctx);
    assert.deepEqual(streamed.finishes, ['length']);
    assert.equal(streamed.text, reply.choices[0]!.message.content);
    assert.equal(streamed.usage.completion_tokens, reply.usage!.completion_tokens);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), ENDPOINT);
  },

  async 'each error class'(ctx) {
    for (const { upstream, client: status, type } of ERROR_CLASSES) {
      const c = await newCustomer(ctx);
      ctx.upstream.enqueue({ kind: 'status', status: upstream, retryAfterSeconds: 2 });
      const res = await fetch(`${ctx.tg.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: ctx.model, messages: [{ role: 'user', content: `fail with ${upstream}` }] }),
      });
      assert.equal(res.status, status, `upstream ${upstream}`);
      const body = (await res.json()) as { error: { type: string; message: string } };
      assert.equal(body.error.type, type, `upstream ${upstream}`);
      if (status === 429) assert.ok(res.headers.get('retry-after'), '429 carries Retry-After');
      await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
    }
  },

  async 'client abort mid-stream'(ctx) {
    const c = await newCustomer(ctx);
    const settled = ctx.tap.next((row) => row.account_id === c.accountId);
    const controller = new AbortController();
    const stream = await client(ctx, c).chat.completions.create({ model: ctx.slowModel, stream: true, messages: [{ role: 'user', content: 'a long story, slowly' }] }, { signal: controller.signal });
    let chunks = 0;
    try {
      for await (const _ of stream) if (++chunks === 4) controller.abort();
    } catch (error) {
      // depending on where the abort lands the client throws or just ends the iteration
      assert.ok(error instanceof OpenAI.APIUserAbortError || (error as Error).name === 'AbortError', String(error));
    }
    assert.equal(chunks, 4, 'nothing more was read after the abort');
    const row = await settled;
    assert.equal(row.status, 499);
    assert.ok(row.completion_tokens > 0, 'the delivered tokens are billed');
    const cost = await expectedCostNano(ctx.tg, ctx.slowModel, { prompt: row.prompt_tokens, completion: row.completion_tokens, cached: row.cached_tokens });
    assert.equal(CREDIT_NANO - ctx.tg.balanceNano(c.accountId), cost);
    assert.equal(row.cost_nano, cost);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'upstream cut mid-stream'(ctx) {
    await brokenStream(ctx, { kind: 'cut-stream', afterChunks: 3 }, /^upstream_stream_(truncated|interrupted)$/);
  },

  async 'upstream error event mid-stream'(ctx) {
    await brokenStream(ctx, { kind: 'stream-error', afterChunks: 3 }, /^upstream_stream_error$/);
  },
};

/**
 * A stream the upstream breaks after it started (the slow upstream: the first events reach the
 * client before the break): relayed so far, then an in-band error, no [DONE], not charged.
 */
async function brokenStream(ctx: ScenarioContext, scenario: Parameters<ScenarioContext['upstream']['enqueue']>[0], code: RegExp): Promise<void> {
  const c = await newCustomer(ctx);
  ctx.slowUpstream.enqueue(scenario);
  const { status, events } = await postSse(`${ctx.tg.baseURL}/chat/completions`, { authorization: `Bearer ${c.key}` }, {
    model: ctx.slowModel,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'break this stream' }],
  });
  assert.equal(status, 200, 'the stream had started');
  assert.ok(!events.some((e) => e.data === '[DONE]'), 'a broken stream never ends as if complete');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as ChatCompletionChunk);
  assert.ok(chunks.some((ch) => (ch.choices[0]?.delta.content ?? '') !== ''), 'what came before the break was relayed');
  assert.ok(chunks.every((ch) => ch.choices.every((x) => x.finish_reason === null)), 'no finish reason');
  const error = (JSON.parse(events.at(-1)!.data) as { error: { type: string; code: string } }).error;
  assert.equal(error.type, 'server_error');
  assert.match(error.code, code);
  await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
  const rows = await usageRows(ctx.tg, c.accountId);
  assert.equal(rows[0].status, 502);
}
