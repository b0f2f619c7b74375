// Every refusal happens before the upgrade, as an HTTP answer with the OpenAI error envelope,
// using the same key store and ledger checks as HTTP requests; nothing is held afterwards.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_MODELS, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider } from '../helpers/upstreams.ts';
import { expectRefusal, noSessions, rawSession, realtimeUrl, REALTIME_MODELS } from '../helpers/realtime.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS], env: { MODELGATE_REALTIME_MAX_SESSIONS_PER_KEY: '2' } });
});
after(async () => {
  await tg.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function assertEnvelope(body: any, type: string, code?: string) {
  assert.equal(typeof body.error.message, 'string');
  assert.equal(body.error.type, type);
  assert.ok('param' in body.error && 'code' in body.error);
  if (code) assert.equal(body.error.code, code);
}

describe('authentication (401)', () => {
  test('missing key', async () => {
    const r = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'));
    assert.equal(r.status, 401);
    assertEnvelope(r.body, 'authentication_error', 'missing_api_key');
    assert.ok(r.headers['x-request-id']);
  });

  test('unknown key, in the header and as a subprotocol', async () => {
    const header = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: bearer('sk-not-a-real-key') });
    assert.equal(header.status, 401);
    assertEnvelope(header.body, 'authentication_error', 'invalid_api_key');
    const protocol = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { protocols: ['realtime', 'openai-insecure-api-key.sk-not-a-real-key'] });
    assert.equal(protocol.status, 401);
  });

  test('disabled and expired keys (the same answer as on HTTP endpoints)', async () => {
    const disabled = await tg.customer(5);
    assert.equal((await tg.admin('PATCH', `/admin/keys/${disabled.keyId}`, { disabled: true })).status, 200);
    const r1 = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: bearer(disabled.key) });
    assert.equal(r1.status, 401);
    assertEnvelope(r1.body, 'authentication_error', 'key_disabled');

    const expired = await tg.customer(5);
    assert.equal((await tg.admin('PATCH', `/admin/keys/${expired.keyId}`, { expires_at: new Date(Date.now() - 1000).toISOString() })).status, 200);
    const r2 = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: bearer(expired.key) });
    assert.equal(r2.status, 401);
    assertEnvelope(r2.body, 'authentication_error', 'key_expired');
  });
});

describe('balance (402)', () => {
  test('an empty balance', async () => {
    const customer = await tg.customer(0);
    const r = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: bearer(customer.key) });
    assert.equal(r.status, 402);
    assertEnvelope(r.body, 'insufficient_quota', 'insufficient_quota');
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('a balance below the first response’s reservation; the message says how much is needed', async () => {
    // 4096 output tokens at gpt-realtime's audio output price ($64/M) ≈ $0.26
    const customer = await tg.customer(0.05);
    const r = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: bearer(customer.key) });
    assert.equal(r.status, 402);
    assert.match(r.body.error.message, /\$0\.26.*\$0\.05/);
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('a key at its spend cap', async () => {
    const customer = await tg.customer(5, { max_spend_usd: 0.01 });
    const r = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: bearer(customer.key) });
    assert.equal(r.status, 402);
    assert.match(r.body.error.message, /spend cap/);
  });
});

describe('models (404 / 400)', () => {
  test('unknown model', async () => {
    const customer = await tg.customer(5);
    const r = await expectRefusal(realtimeUrl(tg, 'gpt-nonexistent-realtime'), { headers: bearer(customer.key) });
    assert.equal(r.status, 404);
    assertEnvelope(r.body, 'not_found', 'model_not_found');
  });

  test('a model outside the key’s allowlist looks nonexistent', async () => {
    const customer = await tg.customer(5, { models: ['gpt-4o-mini'] });
    const r = await expectRefusal(realtimeUrl(tg, 'gpt-realtime'), { headers: bearer(customer.key) });
    assert.equal(r.status, 404);
    assertEnvelope(r.body, 'not_found', 'model_not_found');
  });

  test('a chat model cannot hold a realtime session', async () => {
    const customer = await tg.customer(5);
    const r = await expectRefusal(realtimeUrl(tg, 'gpt-4o-mini'), { headers: bearer(customer.key) });
    assert.equal(r.status, 400);
    assertEnvelope(r.body, 'invalid_request_error', 'model_not_realtime');
  });

  test('a missing model parameter, and a path without /v1', async () => {
    const customer = await tg.customer(5);
    const noModel = await expectRefusal(`${tg.origin.replace('http', 'ws')}/v1/realtime`, { headers: bearer(customer.key) });
    assert.equal(noModel.status, 400);
    assert.equal(noModel.body.error.param, 'model');
    const noV1 = await expectRefusal(`${tg.origin.replace('http', 'ws')}/realtime?model=gpt-realtime`, { headers: bearer(customer.key) });
    assert.equal(noV1.status, 404);
    assertEnvelope(noV1.body, 'not_found', 'missing_v1_prefix');
    const plain = await fetch(`${tg.origin}/v1/realtime?model=gpt-realtime`, { headers: bearer(customer.key) });
    assert.equal(plain.status, 426, 'a GET without the upgrade is told to upgrade');
    assertEnvelope(await plain.json(), 'invalid_request_error', 'upgrade_required');
  });
});

describe('limits (429)', () => {
  test('at most MODELGATE_REALTIME_MAX_SESSIONS_PER_KEY open sessions per key; a closed one frees its slot', async () => {
    const customer = await tg.customer(5);
    const url = realtimeUrl(tg, 'gpt-realtime');
    const a = rawSession(url, { headers: bearer(customer.key) });
    const b = rawSession(url, { headers: bearer(customer.key) });
    await Promise.all([a.opened, b.opened]);
    const third = await expectRefusal(url, { headers: bearer(customer.key) });
    assert.equal(third.status, 429);
    assertEnvelope(third.body, 'rate_limit_exceeded', 'too_many_sessions');
    assert.equal(third.headers['retry-after'], '1');
    const other = await tg.customer(5);
    const c = rawSession(url, { headers: bearer(other.key) });
    await c.opened;

    // the slot is free once the gateway closed both sides of the session
    const closing = once(tg.gateway.realtime.events, 'closed');
    a.ws.close();
    await a.closed;
    await closing;
    assert.equal(tg.gateway.realtime.sessionsOfKey(customer.keyId), 1);
    const again = rawSession(url, { headers: bearer(customer.key) });
    await again.opened;
    for (const s of [b, c, again]) s.ws.close();
    await Promise.all([b.closed, c.closed, again.closed]);
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    await tg.assertBillingInvariants(other.accountId);
  });
});

describe('upstream failures (502) and failover', () => {
  test('a provider that refuses the gateway’s credentials is failed over; when none is left the client gets 502', async (t) => {
    const bad = await addSimProvider(tg, { name: 'rt-bad', models: ['gpt-realtime-mini'], priority: 10, simulator: { apiKey: 'right-key' } });
    t.after(() => bad.close());
    // the provider is registered with a key its simulator does not accept
    assert.equal((await tg.admin('PATCH', `/admin/providers/${bad.id}`, { api_key: 'wrong-key' })).status, 200);
    const customer = await tg.customer(5);
    const refused = await expectRefusal(realtimeUrl(tg, 'gpt-realtime-mini'), { headers: bearer(customer.key) });
    assert.equal(refused.status, 502);
    assertEnvelope(refused.body, 'server_error', 'upstream_auth_failed');
    assert.ok(!JSON.stringify(refused.body).includes('wrong-key'));

    const good = await addSimProvider(tg, { name: 'rt-good', models: ['gpt-realtime-mini'], priority: 0 });
    t.after(() => good.close());
    const s = rawSession(realtimeUrl(tg, 'gpt-realtime-mini'), { headers: bearer(customer.key) });
    await s.opened;
    await s.log.next('session.created');
    assert.equal(good.sim.realtime.connections.length, 1, 'the session went to the next provider');
    s.ws.close();
    await s.closed;
    await good.sim.realtime.connections[0]!.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });
});
