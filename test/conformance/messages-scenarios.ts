// The conformance scenarios through the native messages endpoint, driven by the official
// `@anthropic-ai/sdk` client (and raw fetch where the exact event sequence matters).
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import type { SseEvent } from '../../src/core/sse.ts';
import { assertChargedExactly, assertNotCharged, expectedCostNano } from '../helpers/billing.ts';
import type { Customer } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { CREDIT_NANO, ERROR_CLASSES, IMAGE_URL, newCustomer, PNG_BASE64, postSse, type ScenarioContext } from './context.ts';
import type { ScenarioImplementations } from './scenario-list.ts';
import { assertCapSent, assertReasoningSent, assertSchemaSent, CAP, LONG_ANSWER, SCHEMA } from './upstream-settings.ts';

const ENDPOINT = '/v1/messages';
const client = (ctx: ScenarioContext, c: Customer) => new Anthropic({ apiKey: c.key, baseURL: ctx.tg.origin, maxRetries: 0 });
const rawHeaders = (c: Customer) => ({ 'x-api-key': c.key, 'anthropic-version': '2023-06-01' });

export const TOOLS: Anthropic.Tool[] = [
  { name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_time', description: 'Time in a zone', input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];

const usageOf = (u: Anthropic.Usage) => ({
  prompt: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
  completion: u.output_tokens,
  cached: u.cache_read_input_tokens ?? 0,
  cacheWrite: u.cache_creation_input_tokens ?? 0,
});

const textOf = (message: Anthropic.Message) => message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
const toolUses = (message: Anthropic.Message) => message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');

/** The stream's events must be the vendor's exact sequence, each with its `event:` line. */
function assertEventSequence(events: readonly SseEvent[]): Record<string, unknown>[] {
  const bodies = events.map((e) => {
    const body = JSON.parse(e.data) as Record<string, unknown>;
    assert.equal(e.event, body.type, 'the event: line equals the JSON type');
    return body;
  });
  const names = bodies.map((b) => b.type).filter((t) => t !== 'ping').join(' ');
  assert.match(names, /^message_start( content_block_start( content_block_delta)* content_block_stop)+ message_delta message_stop$/, names);
  return bodies;
}

async function answerTools(ctx: ScenarioContext, c: Customer, history: Anthropic.MessageParam[], message: Anthropic.Message): Promise<void> {
  const results: Anthropic.ToolResultBlockParam[] = toolUses(message).map((use, i) => ({ type: 'tool_result', tool_use_id: use.id, content: `result-${i}` }));
  const next = await client(ctx, c).messages.create({
    model: ctx.model,
    max_tokens: 512,
    tools: TOOLS,
    messages: [...history, { role: 'assistant', content: message.content }, { role: 'user', content: results }],
  });
  assert.match(textOf(next), /Tool result/);
  assert.equal(next.stop_reason, 'end_turn');
}

function assertToolUses(message: Anthropic.Message, names: string[]): void {
  const uses = toolUses(message);
  assert.deepEqual(uses.map((u) => u.name), names);
  assert.equal(new Set(uses.map((u) => u.id)).size, uses.length, 'distinct ids');
  for (const use of uses) assert.equal(typeof use.input, 'object');
  assert.equal(message.stop_reason, 'tool_use');
}

/** A streamed message read raw: the event sequence checked; its text, block types, stop reason and merged usage. */
async function streamMessage(ctx: ScenarioContext, c: Customer, body: Record<string, unknown>): Promise<{ text: string; blocks: string[]; stopReason: string; usage: Anthropic.Usage }> {
  const raw = await postSse(`${ctx.tg.origin}/v1/messages`, rawHeaders(c), { model: ctx.model, stream: true, ...body });
  assert.equal(raw.status, 200);
  const bodies = assertEventSequence(raw.events);
  const start = (bodies[0]!.message as { usage: Anthropic.Usage }).usage;
  const delta = bodies.find((b) => b.type === 'message_delta')!;
  return {
    text: bodies.map((b) => (b.type === 'content_block_delta' ? ((b.delta as { text?: string }).text ?? '') : '')).join(''),
    blocks: bodies.filter((b) => b.type === 'content_block_start').map((b) => (b.content_block as { type: string }).type),
    stopReason: (delta.delta as { stop_reason: string }).stop_reason,
    usage: { ...start, ...Object.fromEntries(Object.entries(delta.usage as object).filter(([, v]) => v !== null)) } as Anthropic.Usage,
  };
}

/** Settings the SDK's types may not know yet (output_config, adaptive thinking), sent as they are. */
const create = (ctx: ScenarioContext, c: Customer, body: Record<string, unknown>) => client(ctx, c).messages.create({ model: ctx.model, max_tokens: 512, ...body } as unknown as Anthropic.MessageCreateParamsNonStreaming);
const OUTPUT_CONFIG = { format: { type: 'json_schema', schema: SCHEMA } };
/** claude-sonnet-5 takes adaptive thinking only; Gemini is asked to show its thoughts (includeThoughts), OpenAI's gpt-4o-mini gets nothing (it shows none). */
const THINKING = { type: 'adaptive' };

export const messagesScenarios: ScenarioImplementations = {
  async text(ctx) {
    const c = await newCustomer(ctx);
    const message = await client(ctx, c).messages.create({ model: ctx.model, max_tokens: 512, system: 'Be brief.', messages: [{ role: 'user', content: 'conformance text' }] });
    assert.equal(message.type, 'message');
    assert.equal(message.role, 'assistant');
    assert.equal(message.model, ctx.model);
    assert.match(message.id, /^msg_/);
    assert.match(textOf(message), /Echo: conformance text/);
    assert.equal(message.stop_reason, 'end_turn');
    assert.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 0);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(message.usage), ENDPOINT);
  },

  async 'streaming text'(ctx) {
    const c = await newCustomer(ctx);
    const raw = await postSse(`${ctx.tg.origin}/v1/messages`, rawHeaders(c), { model: ctx.model, max_tokens: 512, stream: true, messages: [{ role: 'user', content: 'conformance stream' }] });
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    const bodies = assertEventSequence(raw.events);
    const text = bodies.map((b) => ((b.delta as { text?: string } | undefined)?.text ?? '')).join('');
    assert.match(text, /^Echo: conformance stream \| this simulated reply says héllo 世界 🙂/);
    const start = (bodies[0]!.message as { usage: Anthropic.Usage }).usage;
    const delta = bodies.find((b) => b.type === 'message_delta')!;
    assert.equal((delta.delta as { stop_reason: string }).stop_reason, 'end_turn');
    const usage = { ...start, ...Object.fromEntries(Object.entries(delta.usage as object).filter(([, v]) => v !== null)) } as Anthropic.Usage;
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(usage), ENDPOINT);

    const d = await newCustomer(ctx);
    let streamed = '';
    const stream = client(ctx, d).messages.stream({ model: ctx.model, max_tokens: 512, messages: [{ role: 'user', content: 'conformance stream' }] });
    stream.on('text', (piece) => (streamed += piece));
    const final = await stream.finalMessage();
    assert.equal(textOf(final), streamed, 'the helper accumulates what it emitted');
    assert.equal(streamed, text);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(final.usage), ENDPOINT);
  },

  async 'tools: one call, then its result'(ctx) {
    const c = await newCustomer(ctx);
    const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const message = await client(ctx, c).messages.create({ model: ctx.model, max_tokens: 512, tools: TOOLS, tool_choice: { type: 'tool', name: 'get_weather' }, messages: history });
    assertToolUses(message, ['get_weather']);
    await answerTools(ctx, c, history, message);
    assert.equal((await usageRows(ctx.tg, c.accountId)).length, 2);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: parallel calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather and time, in parallel please.' }];
    const message = await client(ctx, c).messages.create({ model: ctx.model, max_tokens: 512, tools: TOOLS, messages: history });
    assertToolUses(message, ['get_weather', 'get_time']);
    await answerTools(ctx, c, history, message);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: streamed calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather and time, in parallel, streamed.' }];
    const raw = await postSse(`${ctx.tg.origin}/v1/messages`, rawHeaders(c), { model: ctx.model, max_tokens: 512, tools: TOOLS, stream: true, messages: history });
    const bodies = assertEventSequence(raw.events);
    const starts = bodies.filter((b) => b.type === 'content_block_start' && (b.content_block as { type: string }).type === 'tool_use');
    assert.equal(starts.length, 2);
    assert.ok(bodies.some((b) => (b.delta as { type?: string } | undefined)?.type === 'input_json_delta'), 'arguments stream as input_json_delta');

    const stream = client(ctx, c).messages.stream({ model: ctx.model, max_tokens: 512, tools: TOOLS, messages: history });
    const final = await stream.finalMessage();
    assertToolUses(final, ['get_weather', 'get_time']);
    await answerTools(ctx, c, history, final);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'multimodal input'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.reset();
    const message = await client(ctx, c).messages.create({
      model: ctx.model,
      max_tokens: 512,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe these images.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
            { type: 'image', source: { type: 'url', url: IMAGE_URL } },
          ],
        },
      ],
    });
    assert.match(textOf(message), /Echo: Describe these images/);
    const sent = JSON.stringify(ctx.upstream.requests.at(-1)!.body);
    assert.ok(sent.includes(PNG_BASE64), 'the inline image reached the upstream');
    assert.ok(sent.includes(IMAGE_URL), 'the image URL reached the upstream');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(message.usage), ENDPOINT);
  },

  async 'usage: cached and cache-write prompt tokens'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue({ kind: 'usage', cachedTokens: 4, cacheWriteTokens: 2 });
    const message = await client(ctx, c).messages.create({ model: ctx.model, max_tokens: 512, messages: [{ role: 'user', content: 'a prompt long enough to have cached parts' }] });
    assert.equal(message.usage.cache_read_input_tokens, 4);
    if (ctx.family === 'anthropic') assert.equal(message.usage.cache_creation_input_tokens, 2);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(message.usage), ENDPOINT);
  },

  async 'JSON schema output'(ctx) {
    const messages = [{ role: 'user', content: 'conformance json' }];
    const c = await newCustomer(ctx);
    const message = await create(ctx, c, { output_config: OUTPUT_CONFIG, messages });
    assertSchemaSent(ctx);
    assert.equal(message.stop_reason, 'end_turn');
    assert.ok(textOf(message) !== '');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(message.usage), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamMessage(ctx, d, { max_tokens: 512, output_config: OUTPUT_CONFIG, messages });
    assertSchemaSent(ctx);
    assert.equal(streamed.stopReason, 'end_turn');
    assert.equal(streamed.text, textOf(message));
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), ENDPOINT);
  },

  async reasoning(ctx) {
    const messages = [{ role: 'user', content: 'conformance reasoning' }];
    // a thinking block where the family shows its reasoning: signed by Anthropic, unsigned (an empty signature) from Gemini's thoughts
    const thinks = ctx.family !== 'openai';
    const c = await newCustomer(ctx);
    const message = await create(ctx, c, { thinking: THINKING, messages });
    assertReasoningSent(ctx, thinks);
    assert.equal(message.stop_reason, 'end_turn');
    assert.deepEqual(message.content.map((b) => b.type), thinks ? ['thinking', 'text'] : ['text']);
    if (message.content[0]!.type === 'thinking') {
      assert.ok(message.content[0]!.thinking !== '', 'the reasoning text is shown');
      assert.equal(message.content[0]!.signature !== '', ctx.family === 'anthropic', 'only Anthropic signs its thinking');
    }
    assert.match(textOf(message), /Echo: conformance reasoning/);
    // the messages usage has no field for thinking: it is inside output_tokens, billed as output
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(message.usage), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamMessage(ctx, d, { max_tokens: 512, thinking: THINKING, messages });
    assertReasoningSent(ctx, thinks);
    assert.deepEqual(streamed.blocks, thinks ? ['thinking', 'text'] : ['text']);
    assert.equal(streamed.stopReason, 'end_turn');
    assert.equal(streamed.usage.output_tokens, message.usage.output_tokens);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), ENDPOINT);
  },

  async 'truncation at the output cap'(ctx) {
    const messages = [{ role: 'user', content: 'conformance truncation' }];
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const message = await create(ctx, c, { max_tokens: CAP, messages });
    assertCapSent(ctx);
    assert.equal(message.stop_reason, 'max_tokens');
    assert.ok(textOf(message) !== '', 'what was written before the cap is delivered');
    assert.ok(message.usage.output_tokens === CAP, `${message.usage.output_tokens} output tokens: billed up to the cap`);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(message.usage), ENDPOINT);

    const d = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const streamed = await streamMessage(ctx, d, { max_tokens: CAP, messages });
    assertCapSent(ctx);
    assert.equal(streamed.stopReason, 'max_tokens');
    assert.equal(streamed.text, textOf(message));
    assert.equal(streamed.usage.output_tokens, message.usage.output_tokens);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.usage), ENDPOINT);
  },

  async 'each error class'(ctx) {
    for (const { upstream, client: status, type } of ERROR_CLASSES) {
      const c = await newCustomer(ctx);
      ctx.upstream.enqueue({ kind: 'status', status: upstream, retryAfterSeconds: 2 });
      const res = await fetch(`${ctx.tg.origin}/v1/messages`, {
        method: 'POST',
        headers: { ...rawHeaders(c), 'content-type': 'application/json' },
        body: JSON.stringify({ model: ctx.model, max_tokens: 64, messages: [{ role: 'user', content: `fail with ${upstream}` }] }),
      });
      assert.equal(res.status, status, `upstream ${upstream}`);
      const body = (await res.json()) as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error', 'the messages envelope');
      assert.equal(body.error.type, type, `upstream ${upstream}`);
      assert.equal(typeof body.error.message, 'string');
      if (status === 429) assert.ok(res.headers.get('retry-after'), '429 carries Retry-After');
      await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
    }
  },

  async 'client abort mid-stream'(ctx) {
    const c = await newCustomer(ctx);
    const settled = ctx.tap.next((row) => row.account_id === c.accountId);
    const stream = client(ctx, c).messages.stream({ model: ctx.slowModel, max_tokens: 2048, messages: [{ role: 'user', content: 'a long story, slowly' }] });
    let pieces = 0;
    stream.on('text', () => {
      if (++pieces === 4) stream.abort();
    });
    await assert.rejects(stream.finalMessage(), (error: Error) => error instanceof Anthropic.APIUserAbortError || error.name === 'AbortError');
    const row = await settled;
    assert.equal(row.status, 499);
    assert.ok(row.completion_tokens > 1, 'the delivered tokens are billed');
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

/** A stream the upstream breaks after it started: an `event: error`, no message_stop, not charged; the SDK throws. */
async function brokenStream(ctx: ScenarioContext, scenario: Parameters<ScenarioContext['upstream']['enqueue']>[0], code: RegExp): Promise<void> {
  const c = await newCustomer(ctx);
  ctx.slowUpstream.enqueue(scenario);
  const body = { model: ctx.slowModel, max_tokens: 512, stream: true, messages: [{ role: 'user', content: 'break this stream' }] };
  const { status, events } = await postSse(`${ctx.tg.origin}/v1/messages`, rawHeaders(c), body);
  assert.equal(status, 200, 'the stream had started');
  const types = events.map((e) => e.event);
  assert.equal(types[0], 'message_start');
  assert.ok(!types.includes('message_stop') && !types.includes('message_delta'), 'a broken stream never ends as if complete');
  assert.ok(types.includes('content_block_delta'), 'what came before the break was relayed');
  assert.equal(types.at(-1), 'error');
  const error = JSON.parse(events.at(-1)!.data) as { type: string; error: { type: string; message: string } };
  assert.equal(error.type, 'error');
  assert.equal(error.error.type, 'server_error');
  assert.match(error.error.message, /upstream|mid-stream/i);
  await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
  const row = (await usageRows(ctx.tg, c.accountId))[0];
  assert.equal(row.status, 502);
  assert.ok(code.test(String(row.error_type)) || row.error_type === 'server_error');

  const d = await newCustomer(ctx);
  ctx.slowUpstream.enqueue(scenario);
  await assert.rejects(client(ctx, d).messages.stream({ ...body, stream: undefined } as never).finalMessage());
  await assertNotCharged(ctx.tg, d.accountId, CREDIT_NANO);
}
