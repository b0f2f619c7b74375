// The Responses API's fast path (issue 20): to an OpenAI-family provider that opted in with
// `settings.responses_api: true`, POST /v1/responses is relayed as it came — the vendor's bytes
// back but for the cost spliced into the final usage — and billed exactly; a provider without the
// setting gets it translated to chat completions. A stored fast-path answer is continued through
// the IR by another family; the same request through both paths reads the same to the openai SDK.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { nanoToUsd } from '../../src/core/money.ts';
import { assertChargedExactly } from '../helpers/billing.ts';
import { addFamilyProvider, CHAT_MODEL, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

const CREDIT = 5;
const START = CREDIT * 1e9;
/** served by the canned upstream; the simulators serve CHAT_MODEL */
const CANNED_MODEL = 'gpt-4o';
/** now: a stored answer expires a retention period after its created_at */
const CREATED_AT = Math.floor(Date.now() / 1000);

let tg: TestGateway;
let openai: FamilyUpstream;
let gemini: FamilyUpstream;
let canned: Server;
const cannedRequests: Array<{ path: string; body: Record<string, unknown> }> = [];
const BREAK = 'break this stream';
let releaseBreak: (() => void) | undefined;

const responseMeta = (status: string, usage: string) =>
  `{"id":"resp_vendor0001","object":"response","created_at":${CREATED_AT},"status":"${status}","model":"${CANNED_MODEL}","output":[],"store":false,"usage":${usage}}`;
const USAGE = '{"input_tokens":21,"input_tokens_details":{"cached_tokens":0},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":24}';
const ITEM = '{"id":"msg_vendor0001","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"Hello there"}]}';
const COMPLETED = `{"id":"resp_vendor0001","object":"response","created_at":${CREATED_AT},"status":"completed","model":"${CANNED_MODEL}","output":[${ITEM}],"store":false,"usage":${USAGE}}`;
const event = (type: string, seq: number, body: string) => `event: ${type}\ndata: {"type":"${type}","sequence_number":${seq},${body}}\n\n`;
const CANNED_EVENTS = [
  event('response.created', 0, `"response":${responseMeta('in_progress', 'null')}`),
  event('response.in_progress', 1, `"response":${responseMeta('in_progress', 'null')}`),
  event('response.output_item.added', 2, `"output_index":0,"item":{"id":"msg_vendor0001","type":"message","status":"in_progress","role":"assistant","content":[]}`),
  event('response.content_part.added', 3, `"item_id":"msg_vendor0001","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`),
  event('response.output_text.delta', 4, `"item_id":"msg_vendor0001","output_index":0,"content_index":0,"delta":"Hello","obfuscation":"k3Jq"`),
  event('response.output_text.delta', 5, `"item_id":"msg_vendor0001","output_index":0,"content_index":0,"delta":" there","obfuscation":"Zp"`),
  event('response.output_text.done', 6, `"item_id":"msg_vendor0001","output_index":0,"content_index":0,"text":"Hello there"`),
  event('response.content_part.done', 7, `"item_id":"msg_vendor0001","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":"Hello there"}`),
  event('response.output_item.done', 8, `"output_index":0,"item":${ITEM}`),
  event('response.completed', 9, `"response":${COMPLETED}`),
];
/** OpenAI pretty-prints a whole answer */
const CANNED_JSON = JSON.stringify(JSON.parse(COMPLETED), null, 2);

before(async () => {
  tg = await startTestGateway({ simulator: false });
  openai = await addFamilyProvider(tg, 'openai', { simulator: { streamChunks: 4 } });
  gemini = await addFamilyProvider(tg, 'gemini', { simulator: { streamChunks: 4 } });
  canned = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      cannedRequests.push({ path: req.url ?? '', body });
      // the vendor names the model it ran: the one it was sent
      const asServed = (text: string) => text.replaceAll(`"model":"${CANNED_MODEL}"`, `"model":"${String(body.model)}"`).replaceAll(`"model": "${CANNED_MODEL}"`, `"model": "${String(body.model)}"`);
      if (body.input === BREAK) {
        // the first events, then (once the test read them through the gateway) the vendor's failure
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const e of CANNED_EVENTS.slice(0, 5)) res.write(e);
        void new Promise<void>((resolve) => (releaseBreak = resolve)).then(() => {
          res.write(event('error', 5, '"code":"server_error","message":"boom","param":null'));
          res.end(event('response.failed', 6, `"response":${responseMeta('failed', 'null')}`));
        });
      } else if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const e of CANNED_EVENTS) res.write(asServed(e));
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(asServed(CANNED_JSON));
      }
    });
  });
  await new Promise<void>((resolve) => canned.listen(0, '127.0.0.1', resolve));
  const created = await tg.admin('POST', '/admin/providers', {
    name: 'canned-responses',
    type: 'openai',
    base_url: `http://127.0.0.1:${(canned.address() as AddressInfo).port}/v1`,
    api_key: 'key-canned',
    models: [CANNED_MODEL],
    settings: { responses_api: true },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
});
after(async () => {
  await tg.close();
  await openai.close();
  await gemini.close();
  await new Promise((resolve) => canned.close(resolve));
});

const sdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1`, maxRetries: 0 });
const usageOf = (u: OpenAI.Responses.ResponseUsage) => ({ prompt: u.input_tokens, completion: u.output_tokens, cached: u.input_tokens_details.cached_tokens });
const post = (c: Customer, body: Record<string, unknown>) =>
  fetch(`${tg.origin}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const optIn = async (on: boolean) => {
  const patched = await tg.admin('PATCH', `/admin/providers/${openai.providerId}`, { settings: on ? { responses_api: true } : {} });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
};
const costOf = (c: Customer) => nanoToUsd(START - tg.balanceNano(c.accountId));

describe('Responses fast path: the vendor bytes, billed exactly', () => {
  test('streamed: every event as the vendor sent it (sequence numbers, item ids, obfuscation), the cost spliced into response.completed', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c, { model: CANNED_MODEL, input: 'Say hello', stream: true, store: false });
    assert.equal(res.status, 200);
    const text = await res.text();
    const sent = cannedRequests.at(-1)!;
    assert.equal(sent.path, '/v1/responses');
    assert.equal(sent.body.store, false);
    assert.equal(sent.body.input, 'Say hello');
    assert.equal(typeof sent.body.max_output_tokens, 'number', 'the gateway caps what it holds for');
    await assertChargedExactly(tg, c.accountId, START, CANNED_MODEL, { prompt: 21, completion: 3 }, '/v1/responses');
    const expected = CANNED_EVENTS.join('').replace(`"usage":${USAGE}`, `"usage":{"cost":${JSON.stringify(costOf(c))},${USAGE.slice(1)}`);
    assert.equal(text, expected);
  });

  test('non-streamed: the vendor JSON as it came, the cost in usage and in x-modelgate-cost', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c, { model: CANNED_MODEL, input: 'Say hello', store: false });
    assert.equal(res.status, 200);
    const text = await res.text();
    await assertChargedExactly(tg, c.accountId, START, CANNED_MODEL, { prompt: 21, completion: 3 }, '/v1/responses');
    const cost = JSON.stringify(costOf(c));
    assert.equal(res.headers.get('x-modelgate-cost'), cost);
    assert.equal(text, CANNED_JSON.replace('"usage": {', `"usage": {"cost":${cost},`));
    assert.equal(res.headers.get('x-modelgate-warning'), null);
  });

  test('a provider that maps the model: the upstream id sent, the client reads its own back, the rest untouched', async () => {
    let cannedId = '';
    const list = await tg.admin('GET', '/admin/providers');
    for (const p of (list.body as { data: Array<{ id: string; name: string }> }).data) if (p.name === 'canned-responses') cannedId = p.id;
    const mapped = await tg.admin('PATCH', `/admin/providers/${cannedId}`, { model_map: { [CANNED_MODEL]: 'vendor-4o-2026' } });
    assert.equal(mapped.status, 200, JSON.stringify(mapped.body));
    try {
      const c = await tg.customer(CREDIT);
      const res = await post(c, { model: CANNED_MODEL, input: 'Say hello', stream: true, store: false });
      const text = await res.text();
      assert.equal(cannedRequests.at(-1)!.body.model, 'vendor-4o-2026');
      assert.equal(text, CANNED_EVENTS.join('').replace(`"usage":${USAGE}`, `"usage":{"cost":${JSON.stringify(costOf(c))},${USAGE.slice(1)}`));
      const d = await tg.customer(CREDIT);
      const whole = await post(d, { model: CANNED_MODEL, input: 'Say hello', store: false });
      assert.equal(await whole.text(), CANNED_JSON.replace('"usage": {', `"usage": {"cost":${JSON.stringify(costOf(d))},`));
      await assertChargedExactly(tg, d.accountId, START, CANNED_MODEL, { prompt: 21, completion: 3 }, '/v1/responses');
    } finally {
      await tg.admin('PATCH', `/admin/providers/${cannedId}`, { model_map: {} });
    }
  });

  test('store (the default): the answer is named by the gateway, reads store: true, and is kept; the upstream still gets store: false', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c, { model: CANNED_MODEL, input: 'Say hello' });
    const text = await res.text();
    assert.equal(cannedRequests.at(-1)!.body.store, false);
    const response = JSON.parse(text) as { id: string; store: boolean; output: Array<{ id: string }> };
    assert.match(response.id, /^resp_/);
    assert.notEqual(response.id, 'resp_vendor0001', 'a stored id is unique whatever the upstream sends');
    assert.equal(response.store, true);
    assert.equal(response.output[0]!.id, 'msg_vendor0001', 'item ids stay the vendor\'s');
    const cost = JSON.stringify(costOf(c));
    const expected = CANNED_JSON.replace('"id": "resp_vendor0001"', `"id": "${response.id}"`).replace('"store": false', '"store": true').replace('"usage": {', `"usage": {"cost":${cost},`);
    assert.equal(text, expected);
    const got = await fetch(`${tg.origin}/v1/responses/${response.id}`, { headers: { authorization: `Bearer ${c.key}` } });
    assert.equal(got.status, 200);
    const stored = (await got.json()) as { id: string; model: string; output: Array<{ id: string }> };
    assert.equal(stored.id, response.id);
    assert.equal(stored.model, CANNED_MODEL);
    assert.equal(stored.output[0]!.id, 'msg_vendor0001');
  });

  test('store, streamed: the response objects read store: true and the gateway\'s id, the rest as the vendor sent it, and the answer is kept', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c, { model: CANNED_MODEL, input: 'Say hello', stream: true, metadata: { turn: 'streamed' } });
    const text = await res.text();
    assert.equal(cannedRequests.at(-1)!.body.store, false);
    assert.deepEqual(cannedRequests.at(-1)!.body.metadata, { turn: 'streamed' }, 'the request as it came');
    const id = /"response":\{"id":"(resp_[^"]+)"/.exec(text)?.[1];
    assert.ok(id && id !== 'resp_vendor0001', text.slice(0, 300));
    const expected = CANNED_EVENTS.join('')
      .replaceAll('"store":false', '"store":true')
      .replaceAll('"id":"resp_vendor0001"', `"id":"${id}"`)
      .replace(`"usage":${USAGE}`, `"usage":{"cost":${JSON.stringify(costOf(c))},${USAGE.slice(1)}`);
    assert.equal(text, expected);
    const got = await fetch(`${tg.origin}/v1/responses/${id}/input_items`, { headers: { authorization: `Bearer ${c.key}` } });
    assert.equal(got.status, 200);
    const items = (await got.json()) as { data: Array<{ content: unknown }> };
    assert.equal(items.data.length, 1);
  });
});

describe('Responses fast path: only for a provider that opted in', () => {
  test('without settings.responses_api the simulator sees /chat/completions; with it, /responses', async () => {
    const c = await tg.customer(CREDIT);
    openai.reset();
    await optIn(false);
    await sdk(c).responses.create({ model: CHAT_MODEL.openai, input: 'Which path?', store: false });
    assert.deepEqual(openai.requests.map((r) => r.path), ['/v1/chat/completions']);
    await optIn(true);
    try {
      await sdk(c).responses.create({ model: CHAT_MODEL.openai, input: 'Which path?', store: false });
      assert.deepEqual(openai.requests.map((r) => r.path), ['/v1/chat/completions', '/v1/responses']);
      assert.equal((openai.requests[1]!.body as { store: unknown }).store, false);
    } finally {
      await optIn(false);
    }
  });

  test('previous_response_id: a fast-path turn, then an IR turn served by another family', async () => {
    const c = await tg.customer(CREDIT);
    await optIn(true);
    let first: OpenAI.Responses.Response;
    try {
      openai.reset();
      first = await sdk(c).responses.create({ model: CHAT_MODEL.openai, input: 'My name is Ada.' });
      assert.deepEqual(openai.requests.map((r) => r.path), ['/v1/responses']);
    } finally {
      await optIn(false);
    }
    gemini.reset();
    const second = await sdk(c).responses.create({ model: CHAT_MODEL.gemini, input: 'What is my name?', previous_response_id: first.id });
    assert.equal(second.status, 'completed');
    assert.equal(second.previous_response_id, first.id);
    const sent = JSON.stringify(gemini.requests[0]!.body);
    assert.ok(sent.includes('My name is Ada.') && sent.includes(first.output_text.slice(0, 20)), sent);
    const got = await fetch(`${tg.origin}/v1/responses/${second.id}`, { headers: { authorization: `Bearer ${c.key}` } });
    assert.equal(got.status, 200);
  });
});

describe('Responses fast path: a broken stream', () => {
  test("the vendor's error event after its first events: those relayed, then error and response.failed numbered on; not charged", async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c, { model: CANNED_MODEL, input: BREAK, stream: true, store: false });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let text = Buffer.from((await reader.read()).value!).toString('utf8');
    releaseBreak!();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += Buffer.from(chunk.value).toString('utf8');
    assert.ok(text.startsWith(CANNED_EVENTS.slice(0, 5).join('')), text);
    const events = text.split('\n\n').filter(Boolean).map((e) => JSON.parse(e.split('\ndata: ')[1]!) as { type: string; sequence_number: number; code?: string; response?: { id: string; status: string } });
    assert.deepEqual(events.map((e) => e.sequence_number), [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(events.slice(-2).map((e) => e.type), ['error', 'response.failed']);
    assert.equal(events[5]!.code, 'upstream_stream_error');
    assert.equal(events[6]!.response!.id, 'resp_vendor0001');
    assert.equal(events[6]!.response!.status, 'failed');
    assert.equal(tg.balanceNano(c.accountId), START, 'not charged');
    await tg.assertBillingInvariants(c.accountId);
  });

  for (const scenario of [{ kind: 'cut-stream', afterChunks: 3 }] as const) {
    test(`${scenario.kind}: the vendor's events up to the break, then error and response.failed numbered on; not charged`, async () => {
      const c = await tg.customer(CREDIT);
      await optIn(true);
      try {
        openai.reset();
        openai.enqueue(scenario);
        const res = await post(c, { model: CHAT_MODEL.openai, input: 'break this stream', stream: true });
        assert.equal(res.status, 200);
        const events = (await res.text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.split('\ndata: ')[1]!) as { type: string; sequence_number: number; response?: { status: string; id: string } });
        assert.deepEqual(openai.requests.map((r) => r.path), ['/v1/responses']);
        assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
        assert.ok(events.some((e) => e.type === 'response.output_text.delta'), 'what came before the break was relayed');
        assert.deepEqual(events.slice(-2).map((e) => e.type), ['error', 'response.failed']);
        assert.equal(events.at(-1)!.response!.status, 'failed');
        assert.equal(events.at(-1)!.response!.id, events[0]!.response!.id);
        assert.ok(!events.some((e) => e.type === 'response.completed'));
        assert.equal(tg.balanceNano(c.accountId), START, 'not charged');
        await tg.assertBillingInvariants(c.accountId);
      } finally {
        await optIn(false);
      }
    });
  }
});

describe('Responses fast path vs the IR: the same to the openai SDK', () => {
  const TOOLS: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', description: 'Weather in a city', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } }];
  const both = async <T>(run: (c: Customer) => Promise<T>): Promise<{ ir: T; fast: T; irCustomer: Customer; fastCustomer: Customer }> => {
    const irCustomer = await tg.customer(CREDIT);
    const ir = await run(irCustomer);
    await optIn(true);
    try {
      const fastCustomer = await tg.customer(CREDIT);
      openai.reset();
      const fast = await run(fastCustomer);
      assert.deepEqual(openai.requests.map((r) => r.path), ['/v1/responses']);
      return { ir, fast, irCustomer, fastCustomer };
    } finally {
      await optIn(false);
    }
  };

  test('text and usage, non-streamed, billed exactly on both', async () => {
    const { ir, fast, irCustomer, fastCustomer } = await both((c) => sdk(c).responses.create({ model: CHAT_MODEL.openai, input: 'Hello from both paths', instructions: 'Be brief.', store: false }));
    assert.equal(fast.output_text, ir.output_text);
    assert.deepEqual(usageOf(fast.usage!), usageOf(ir.usage!));
    await assertChargedExactly(tg, irCustomer.accountId, START, CHAT_MODEL.openai, usageOf(ir.usage!), '/v1/responses');
    await assertChargedExactly(tg, fastCustomer.accountId, START, CHAT_MODEL.openai, usageOf(fast.usage!), '/v1/responses');
  });

  test('a streamed function call: the same name, arguments and usage', async () => {
    const run = (c: Customer) => sdk(c).responses.stream({ model: CHAT_MODEL.openai, input: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS, store: false }).finalResponse();
    const { ir, fast, fastCustomer } = await both(run);
    const calls = (r: OpenAI.Responses.Response) => r.output.filter((i) => i.type === 'function_call').map((i) => ({ name: (i as OpenAI.Responses.ResponseFunctionToolCall).name, arguments: (i as OpenAI.Responses.ResponseFunctionToolCall).arguments }));
    assert.ok(calls(ir).length > 0, JSON.stringify(ir.output));
    assert.deepEqual(calls(fast), calls(ir));
    assert.deepEqual(usageOf(fast.usage!), usageOf(ir.usage!));
    await assertChargedExactly(tg, fastCustomer.accountId, START, CHAT_MODEL.openai, usageOf(fast.usage!), '/v1/responses');
  });
});
