// The conformance scenarios through the Responses dialect (POST /v1/responses), driven by the
// official `openai` client's `responses` API (and raw fetch where the exact event sequence matters).
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { SseEvent } from '../../src/core/sse.ts';
import { assertChargedExactly, assertNotCharged, expectedCostNano } from '../helpers/billing.ts';
import type { Customer } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { CREDIT_NANO, ERROR_CLASSES, IMAGE_URL, newCustomer, PNG_BASE64, postSse, type ScenarioContext } from './context.ts';
import type { ScenarioImplementations } from './scenario-list.ts';
import { assertCapSent, assertReasoningSent, assertSchemaSent, CAP, LONG_ANSWER, SCHEMA, SIM_REASONING_TOKENS } from './upstream-settings.ts';

type Response = OpenAI.Responses.Response;
type FunctionCall = OpenAI.Responses.ResponseFunctionToolCall;

const ENDPOINT = '/v1/responses';
const client = (ctx: ScenarioContext, c: Customer) => new OpenAI({ apiKey: c.key, baseURL: ctx.tg.baseURL, maxRetries: 0 });
const bearer = (c: Customer) => ({ authorization: `Bearer ${c.key}` });

const TOOLS: OpenAI.Responses.Tool[] = [
  { type: 'function', name: 'get_weather', description: 'Weather in a city', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { type: 'function', name: 'get_time', description: 'Time in a zone', strict: false, parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];

const usageOf = (u: OpenAI.Responses.ResponseUsage, cacheWrite = 0) => ({ prompt: u.input_tokens, completion: u.output_tokens, cached: u.input_tokens_details.cached_tokens, cacheWrite });
const textOf = (r: Response) => r.output.map((item) => (item.type === 'message' ? item.content.map((p) => (p.type === 'output_text' ? p.text : '')).join('') : '')).join('');
const callsOf = (r: Response) => r.output.filter((item): item is FunctionCall => item.type === 'function_call');

/** The stream's events: the Responses sequence, each with its `event:` line and numbered from 0. */
function assertEventSequence(events: readonly SseEvent[], terminal = 'response.completed'): Record<string, unknown>[] {
  const bodies = events.map((e, i) => {
    const body = JSON.parse(e.data) as Record<string, unknown>;
    assert.equal(e.event, body.type, 'the event: line equals the JSON type');
    assert.equal(body.sequence_number, i, 'numbered from 0');
    return body;
  });
  const names = bodies.map((b) => b.type).join(' ');
  // a message item (opened, its text, closed), then the function calls (opened with their argument deltas, closed at the end)
  const r = (name: string) => `response\\.${name.replace('.', '\\.')}`;
  const message = ` ${r('output_item.added')} ${r('content_part.added')}( ${r('output_text.delta')})+ ${r('output_text.done')} ${r('content_part.done')} ${r('output_item.done')}`;
  const calls = `( (${r('output_item.added')}|${r('function_call_arguments.delta')}))*( ${r('function_call_arguments.done')} ${r('output_item.done')})*`;
  const grammar = `^${r('created')} ${r('in_progress')}(${message})?${calls} ${terminal.replace(/\./g, '\\.')}$`;
  assert.match(names, new RegExp(grammar), names);
  return bodies;
}

async function answerTools(ctx: ScenarioContext, c: Customer, input: OpenAI.Responses.ResponseInput, response: Response): Promise<void> {
  const calls = callsOf(response);
  const next = await client(ctx, c).responses.create({
    model: ctx.model,
    tools: TOOLS,
    input: [...input, ...calls, ...calls.map((call, i) => ({ type: 'function_call_output' as const, call_id: call.call_id, output: `result-${i}` }))],
  });
  assert.match(textOf(next), /Tool result/);
  assert.equal(next.status, 'completed');
}

function assertCalls(response: Response, names: string[]): void {
  const calls = callsOf(response);
  assert.deepEqual(calls.map((call) => call.name), names);
  assert.equal(new Set(calls.map((call) => call.call_id)).size, calls.length, 'distinct call ids');
  for (const call of calls) assert.equal(typeof JSON.parse(call.arguments), 'object');
}

/** A streamed response read raw: the event sequence checked, the terminal event's response returned with the streamed text. */
async function streamResponse(ctx: ScenarioContext, c: Customer, body: Record<string, unknown>, terminal = 'response.completed'): Promise<{ text: string; response: Response }> {
  const raw = await postSse(`${ctx.tg.baseURL}/responses`, bearer(c), { model: ctx.model, stream: true, ...body });
  assert.equal(raw.status, 200);
  const bodies = assertEventSequence(raw.events, terminal);
  const response = bodies.at(-1)!.response as Response;
  const text = bodies.map((b) => (b.type === 'response.output_text.delta' ? String(b.delta) : '')).join('');
  assert.equal(textOf(response), text, 'the final response holds what streamed');
  return { text, response };
}

const TEXT_FORMAT = { format: { type: 'json_schema', name: 'verdict', strict: true, schema: SCHEMA as unknown as Record<string, unknown> } } as const;

export const responsesScenarios: ScenarioImplementations = {
  async text(ctx) {
    const c = await newCustomer(ctx);
    const response = await client(ctx, c).responses.create({ model: ctx.model, instructions: 'Be brief.', input: 'conformance text' });
    assert.equal(response.object, 'response');
    assert.equal(response.model, ctx.model);
    assert.match(response.id, /^resp_/);
    assert.match(response.output_text, /Echo: conformance text/);
    assert.equal(response.status, 'completed');
    assert.ok(response.usage!.input_tokens > 0 && response.usage!.output_tokens > 0);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usage!), ENDPOINT);
  },

  async 'streaming text'(ctx) {
    const c = await newCustomer(ctx);
    const raw = await postSse(`${ctx.tg.baseURL}/responses`, bearer(c), { model: ctx.model, stream: true, input: 'conformance stream' });
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    const bodies = assertEventSequence(raw.events);
    const text = bodies.map((b) => (b.type === 'response.output_text.delta' ? String(b.delta) : '')).join('');
    assert.match(text, /^Echo: conformance stream \| this simulated reply says héllo 世界 🙂/);
    const completed = bodies.at(-1)!.response as Response;
    assert.equal(textOf(completed), text);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(completed.usage!), ENDPOINT);

    const d = await newCustomer(ctx);
    let streamed = '';
    const stream = client(ctx, d).responses.stream({ model: ctx.model, input: 'conformance stream' });
    stream.on('response.output_text.delta', (event) => (streamed += event.delta));
    const final = await stream.finalResponse();
    assert.equal(final.output_text, streamed, 'the helper accumulates what it emitted');
    assert.equal(streamed, text);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(final.usage!), ENDPOINT);
  },

  async 'tools: one call, then its result'(ctx) {
    const c = await newCustomer(ctx);
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const response = await client(ctx, c).responses.create({ model: ctx.model, tools: TOOLS, tool_choice: { type: 'function', name: 'get_weather' }, input });
    assertCalls(response, ['get_weather']);
    await answerTools(ctx, c, input, response);
    assert.equal((await usageRows(ctx.tg, c.accountId)).length, 2);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: parallel calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather and time, in parallel please.' }];
    const response = await client(ctx, c).responses.create({ model: ctx.model, tools: TOOLS, input });
    assertCalls(response, ['get_weather', 'get_time']);
    await answerTools(ctx, c, input, response);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'tools: streamed calls, then their results'(ctx) {
    const c = await newCustomer(ctx);
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather and time, in parallel, streamed.' }];
    const raw = await postSse(`${ctx.tg.baseURL}/responses`, bearer(c), { model: ctx.model, tools: TOOLS, stream: true, input });
    const bodies = assertEventSequence(raw.events);
    const added = bodies.filter((b) => b.type === 'response.output_item.added' && (b.item as { type: string }).type === 'function_call');
    assert.equal(added.length, 2);
    assert.ok(bodies.some((b) => b.type === 'response.function_call_arguments.delta'), 'arguments stream as function_call_arguments.delta');

    const final = await client(ctx, c).responses.stream({ model: ctx.model, tools: TOOLS, input }).finalResponse();
    assertCalls(final, ['get_weather', 'get_time']);
    await answerTools(ctx, c, input, final);
    await ctx.tg.assertBillingInvariants(c.accountId);
  },

  async 'multimodal input'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.reset();
    const response = await client(ctx, c).responses.create({
      model: ctx.model,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Describe these images.' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
            { type: 'input_image', image_url: IMAGE_URL, detail: 'auto' },
          ],
        },
      ],
    });
    assert.match(response.output_text, /Echo: Describe these images/);
    const sent = JSON.stringify(ctx.upstream.requests.at(-1)!.body);
    assert.ok(sent.includes(PNG_BASE64), 'the inline image reached the upstream');
    assert.ok(sent.includes(IMAGE_URL), 'the image URL reached the upstream');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usage!), ENDPOINT);
  },

  async 'usage: cached and cache-write prompt tokens'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue({ kind: 'usage', cachedTokens: 4, cacheWriteTokens: 2 });
    const response = await client(ctx, c).responses.create({ model: ctx.model, input: 'a prompt long enough to have cached parts' });
    assert.equal(response.usage!.input_tokens_details.cached_tokens, 4, 'cached tokens reported');
    // the Responses usage has no field for cache writes: they are in input_tokens, billed at their own price
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usage!, ctx.family === 'anthropic' ? 2 : 0), ENDPOINT);
  },

  async 'JSON schema output'(ctx) {
    const c = await newCustomer(ctx);
    const response = await client(ctx, c).responses.create({ model: ctx.model, text: TEXT_FORMAT, input: 'conformance json' });
    assertSchemaSent(ctx);
    assert.equal(response.status, 'completed');
    assert.ok(response.output_text !== '');
    // only OpenAI's /responses simulator writes JSON for a schema (an object with the required field); the others answer their usual text
    if (ctx.upstream.requests.at(-1)!.path.endsWith('/responses')) assert.ok('conformance_verdict' in (JSON.parse(response.output_text) as object), response.output_text);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usage!), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamResponse(ctx, d, { text: TEXT_FORMAT, input: 'conformance json' });
    assertSchemaSent(ctx);
    assert.equal(streamed.response.status, 'completed');
    assert.equal(streamed.text, response.output_text);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.response.usage!), ENDPOINT);
  },

  async reasoning(ctx) {
    const c = await newCustomer(ctx);
    const response = await client(ctx, c).responses.create({ model: ctx.model, reasoning: { effort: 'low' }, input: 'conformance reasoning' });
    assertReasoningSent(ctx);
    assert.equal(response.status, 'completed');
    assert.match(response.output_text, /Echo: conformance reasoning/);
    assert.equal(response.usage!.output_tokens_details.reasoning_tokens, SIM_REASONING_TOKENS[ctx.family], 'reasoning tokens reported');
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usage!), ENDPOINT);

    const d = await newCustomer(ctx);
    const streamed = await streamResponse(ctx, d, { reasoning: { effort: 'low' }, input: 'conformance reasoning' });
    assertReasoningSent(ctx);
    assert.equal(streamed.text, response.output_text);
    assert.equal(streamed.response.usage!.output_tokens_details.reasoning_tokens, SIM_REASONING_TOKENS[ctx.family], 'reasoning tokens reported');
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.response.usage!), ENDPOINT);
  },

  async 'truncation at the output cap'(ctx) {
    const c = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const response = await client(ctx, c).responses.create({ model: ctx.model, max_output_tokens: CAP, input: 'conformance truncation' });
    assertCapSent(ctx);
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
    assert.ok(response.output_text !== '', 'what was written before the cap is delivered');
    assert.ok(response.usage!.output_tokens === CAP, `${response.usage!.output_tokens} output tokens: billed up to the cap`);
    await assertChargedExactly(ctx.tg, c.accountId, CREDIT_NANO, ctx.model, usageOf(response.usage!), ENDPOINT);

    const d = await newCustomer(ctx);
    ctx.upstream.enqueue(LONG_ANSWER);
    const streamed = await streamResponse(ctx, d, { max_output_tokens: CAP, input: 'conformance truncation' }, 'response.incomplete');
    assertCapSent(ctx);
    assert.equal(streamed.response.status, 'incomplete');
    assert.deepEqual(streamed.response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(streamed.text, response.output_text);
    assert.equal(streamed.response.usage!.output_tokens, response.usage!.output_tokens);
    await assertChargedExactly(ctx.tg, d.accountId, CREDIT_NANO, ctx.model, usageOf(streamed.response.usage!), ENDPOINT);
  },

  async 'each error class'(ctx) {
    for (const { upstream, client: status, type } of ERROR_CLASSES) {
      const c = await newCustomer(ctx);
      ctx.upstream.enqueue({ kind: 'status', status: upstream, retryAfterSeconds: 2 });
      const res = await fetch(`${ctx.tg.baseURL}/responses`, {
        method: 'POST',
        headers: { ...bearer(c), 'content-type': 'application/json' },
        body: JSON.stringify({ model: ctx.model, input: `fail with ${upstream}` }),
      });
      assert.equal(res.status, status, `upstream ${upstream}`);
      const body = (await res.json()) as { error: { type: string; message: string } };
      assert.equal(body.error.type, type, `upstream ${upstream}: the OpenAI envelope`);
      assert.equal(typeof body.error.message, 'string');
      if (status === 429) assert.ok(res.headers.get('retry-after'), '429 carries Retry-After');
      await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
    }
  },

  async 'client abort mid-stream'(ctx) {
    const c = await newCustomer(ctx);
    const settled = ctx.tap.next((row) => row.account_id === c.accountId);
    const controller = new AbortController();
    const stream = await client(ctx, c).responses.create({ model: ctx.slowModel, stream: true, input: 'a long story, slowly' }, { signal: controller.signal });
    let deltas = 0;
    try {
      for await (const event of stream) if (event.type === 'response.output_text.delta' && ++deltas === 4) controller.abort();
    } catch (error) {
      assert.ok(error instanceof OpenAI.APIUserAbortError || (error as Error).name === 'AbortError', String(error));
    }
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

/** A stream the upstream breaks after it started: `error` then `response.failed`, never completed, not charged; the SDK throws. */
async function brokenStream(ctx: ScenarioContext, scenario: Parameters<ScenarioContext['upstream']['enqueue']>[0], code: RegExp): Promise<void> {
  const c = await newCustomer(ctx);
  ctx.slowUpstream.enqueue(scenario);
  const body = { model: ctx.slowModel, stream: true, input: 'break this stream' };
  const { status, events } = await postSse(`${ctx.tg.baseURL}/responses`, bearer(c), body);
  assert.equal(status, 200, 'the stream had started');
  const types = events.map((e) => e.event);
  assert.equal(types[0], 'response.created');
  assert.ok(!types.includes('response.completed') && !types.includes('response.incomplete'), 'a broken stream never ends as if complete');
  assert.ok(types.includes('response.output_text.delta'), 'what came before the break was relayed');
  assert.deepEqual(types.slice(-2), ['error', 'response.failed']);
  const error = JSON.parse(events.at(-2)!.data) as { type: string; message: string; code: string };
  assert.match(error.message, /upstream|mid-stream/i);
  assert.equal((JSON.parse(events.at(-1)!.data) as { response: Response }).response.status, 'failed');
  await assertNotCharged(ctx.tg, c.accountId, CREDIT_NANO);
  const row = (await usageRows(ctx.tg, c.accountId))[0];
  assert.equal(row.status, 502);
  assert.ok(code.test(String(row.error_type)) || row.error_type === 'server_error');

  const d = await newCustomer(ctx);
  ctx.slowUpstream.enqueue(scenario);
  await assert.rejects(client(ctx, d).responses.stream({ model: ctx.slowModel, input: 'break this stream' }).finalResponse());
  await assertNotCharged(ctx.tg, d.accountId, CREDIT_NANO);
}
