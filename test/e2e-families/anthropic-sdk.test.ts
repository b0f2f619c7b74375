// The official Anthropic client against POST /v1/messages: a model served natively (passed
// through) and a model served by an OpenAI-family provider (bridged), plain, with the `.stream()`
// helpers and with tools; the native headers; billing exact on every call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { assertChargedExactly, assertNotCharged } from '../helpers/billing.ts';
import { addFamilyProvider, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

let tg: TestGateway;
let native: FamilyUpstream;
let openai: FamilyUpstream;
const CREDIT = 5;
const START = CREDIT * 1e9;
const NATIVE = 'claude-sonnet-5';
const BRIDGED = 'gpt-4o-mini';
const TOOLS: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];

before(async () => {
  tg = await startTestGateway({ simulator: false });
  native = await addFamilyProvider(tg, 'anthropic', { models: [NATIVE, 'claude-renamed'], modelMap: { 'claude-renamed': NATIVE } });
  openai = await addFamilyProvider(tg, 'openai', { models: [BRIDGED] });
  const pricing = (await tg.admin('GET', '/admin/models')).body.data.find((m: { id: string }) => m.id === NATIVE).pricing;
  await tg.admin('PUT', '/admin/models/claude-renamed', { pricing });
});
after(async () => {
  await tg.close();
  await native.close();
  await openai.close();
});

const sdk = (c: Customer) => new Anthropic({ apiKey: c.key, baseURL: tg.origin, maxRetries: 0 });
const usageOf = (u: Anthropic.Usage) => ({ prompt: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0), completion: u.output_tokens, cached: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 });

for (const [label, model] of [['native model (pass-through)', NATIVE], ['OpenAI-family model (bridged)', BRIDGED]] as const) {
  describe(`Anthropic SDK → ${label}`, () => {
    test('messages.create', async () => {
      const c = await tg.customer(CREDIT);
      const message = await sdk(c).messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Hello from the SDK' }] });
      assert.match((message.content[0] as Anthropic.TextBlock).text, /Echo: Hello from the SDK/);
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(message.usage), '/v1/messages');
    });

    test('messages.stream helpers: text events, finalText, finalMessage', async () => {
      const c = await tg.customer(CREDIT);
      const stream = sdk(c).messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Stream from the SDK' }] });
      let text = '';
      let events = 0;
      stream.on('text', (delta) => (text += delta));
      stream.on('streamEvent', () => events++);
      const finalText = await stream.finalText();
      const final = await stream.finalMessage();
      assert.equal(finalText, text);
      assert.match(text, /^Echo: Stream from the SDK \| this simulated reply says héllo 世界 🙂/);
      assert.equal(final.stop_reason, 'end_turn');
      assert.ok(events > 5);
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(final.usage), '/v1/messages');
    });

    test('tools: streamed tool use with input JSON, then the result', async () => {
      const c = await tg.customer(CREDIT);
      const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const stream = sdk(c).messages.stream({ model, max_tokens: 256, tools: TOOLS, messages: history });
      let json = '';
      stream.on('inputJson', (delta) => (json += delta));
      const first = await stream.finalMessage();
      const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
      assert.equal(use.name, 'get_weather');
      assert.deepEqual(use.input, JSON.parse(json));
      assert.equal(first.stop_reason, 'tool_use');
      const second = await sdk(c).messages.create({
        model,
        max_tokens: 256,
        tools: TOOLS,
        messages: [...history, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] }],
      });
      assert.match((second.content[0] as Anthropic.TextBlock).text, /Tool result: sunny/);
      await tg.assertBillingInvariants(c.accountId);
    });

    test('count_tokens', async () => {
      const c = await tg.customer(CREDIT);
      const counted = await sdk(c).messages.countTokens({ model, messages: [{ role: 'user', content: 'How many tokens is this?' }] });
      assert.ok(counted.input_tokens > 0);
      await assertNotCharged(tg, c.accountId, START);
    });
  });
}

describe('native pass-through', () => {
  test('the body reaches the upstream untouched but for the model and fields it does not know (dropped, named in a warning); the upstream key replaces the client’s; headers passed on', async () => {
    const c = await tg.customer(CREDIT);
    native.reset();
    const body = { model: 'claude-renamed', max_tokens: 64, messages: [{ role: 'user', content: 'untouched?' }], metadata: { user_id: 'u-1' }, service_tier: 'auto' };
    const res = await fetch(`${tg.origin}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'native-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14', 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, a_future_field: { x: [1, 2] } }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-modelgate-warning') ?? '', /a_future_field dropped/);
    const message = (await res.json()) as Anthropic.Message;
    assert.equal(message.model, 'claude-renamed', 'the model is renamed back');
    const sent = native.requests.at(-1)!;
    assert.deepEqual(sent.body, { ...body, model: NATIVE });
    assert.equal(sent.headers['x-api-key'], native.apiKey);
    assert.equal(sent.headers.authorization, undefined);
    assert.equal(sent.headers['anthropic-version'], '2023-06-01');
    assert.equal(sent.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
  });

  test('the SDK’s own version header is forwarded; a renamed model is renamed back in streams', async () => {
    const c = await tg.customer(CREDIT);
    native.reset();
    const final = await sdk(c).messages.stream({ model: 'claude-renamed', max_tokens: 64, messages: [{ role: 'user', content: 'renamed' }] }).finalMessage();
    assert.equal(final.model, 'claude-renamed');
    assert.equal(native.requests.at(-1)!.headers['anthropic-version'], '2026-10-21');
    await assertChargedExactly(tg, c.accountId, START, 'claude-renamed', usageOf(final.usage), '/v1/messages');
  });
});

describe('the messages envelope for every refusal', () => {
  const post = (headers: Record<string, string>, body: unknown = { model: NATIVE, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }) =>
    fetch(`${tg.origin}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  test('no version header: 400 naming it', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post({ 'x-api-key': c.key });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { type: 'error', error: { type: 'invalid_request_error', message: 'The native-version header is required (for example "native-version: 2023-06-01").' } });
  });

  test('a wrong key: 401, and the SDK raises AuthenticationError', async () => {
    const res = await post({ 'x-api-key': 'sk-wrong', 'anthropic-version': '2023-06-01' });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { type: string }).type, 'error');
    await assert.rejects(new Anthropic({ apiKey: 'sk-wrong', baseURL: tg.origin, maxRetries: 0 }).messages.create({ model: NATIVE, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }), Anthropic.AuthenticationError);
  });

  test('no balance: 402 insufficient_quota', async () => {
    const c = await tg.customer(0);
    const error = await sdk(c).messages.create({ model: NATIVE, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.APIError);
    assert.equal(error.status, 402);
    assert.equal((error.error as { error: { type: string } }).error.type, 'insufficient_quota');
  });

  test('an unknown model: 404; a missing field: 400 naming it', async () => {
    const c = await tg.customer(CREDIT);
    const unknown = await post({ 'x-api-key': c.key, 'anthropic-version': '2023-06-01' }, { model: 'nope', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(unknown.status, 404);
    const missing = await post({ 'x-api-key': c.key, 'anthropic-version': '2023-06-01' }, { model: NATIVE, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { error: { message: string } }).error.message, /max_tokens/);
  });

  test('bridged: settings the other family cannot honour are named in x-modelgate-warning', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post({ 'x-api-key': c.key, 'anthropic-version': '2023-06-01' }, { model: BRIDGED, max_tokens: 8, top_k: 5, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-modelgate-warning') ?? '', /top_k dropped/);
  });
});
