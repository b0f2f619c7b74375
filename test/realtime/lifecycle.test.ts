// Either side closing closes the other with a meaningful code; session limits (length, frame
// size, idle, dead peers) end sessions cleanly; money stays exact through all of it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { DEFAULT_MODELS, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { GPT_REALTIME, noSessions, priceOf, rawSession, realtimeUrl, REALTIME_MODELS, type RawSession } from '../helpers/realtime.ts';

const MODELS = [...DEFAULT_MODELS, ...REALTIME_MODELS];

function open(tg: TestGateway, customer: Customer): RawSession {
  return rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
}

function say(s: RawSession, text: string): void {
  s.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
  s.send({ type: 'response.create' });
}

describe('closing', () => {
  let tg: TestGateway;
  before(async () => {
    tg = await startTestGateway({ models: MODELS });
  });
  after(async () => {
    await tg.close();
  });

  test('the client closing closes the upstream session', async () => {
    const customer = await tg.customer(5);
    const s = open(tg, customer);
    await s.log.next('session.created');
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    s.ws.close(1000, 'bye');
    assert.deepEqual(await upstream.closed, { code: 1000, reason: 'client closed' });
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal(tg.balanceNano(customer.accountId), 5e9);
  });

  test('a client leaving mid-response: the response is cancelled upstream and what it produced is billed', async () => {
    const customer = await tg.customer(5);
    const s = open(tg, customer);
    await s.log.next('session.created');
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    say(s, 'Long answer please [[sim:hold]]');
    await s.log.next('response.output_audio.delta');
    s.ws.terminate();
    const cancel = await upstream.nextEvent('response.cancel');
    assert.ok(cancel.response_id);
    assert.equal((await upstream.closed).code, 1000);
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 499);
    assert.ok(rows[0].completion_tokens > 0);
    assert.equal(5e9 - tg.balanceNano(customer.accountId), Math.round(rows[0].cost_usd * 1e9));
  });

  test('the upstream closing reaches the client with its code and reason', async () => {
    const customer = await tg.customer(5);
    const s = open(tg, customer);
    await s.log.next('session.created');
    tg.sim!.realtime.connections.at(-1)!.close(4001, 'vendor session limit');
    assert.deepEqual(await s.closed, { code: 4001, reason: 'vendor session limit' });
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('an upstream connection that drops: the client hears 1011, a response cut short costs nothing', async () => {
    const customer = await tg.customer(5);
    const s = open(tg, customer);
    await s.log.next('session.created');
    say(s, 'Start and hang [[sim:hold]]');
    await s.log.next('response.output_audio.delta');
    tg.sim!.realtime.connections.at(-1)!.drop();
    assert.deepEqual(await s.closed, { code: 1011, reason: 'upstream connection lost' });
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal(tg.balanceNano(customer.accountId), 5e9);
    assert.equal((await usageRows(tg, customer.accountId)).length, 0);
  });

  test('graceful shutdown: clients hear 1001, the running response is cancelled and billed before the flush', async () => {
    const customer = await tg.customer(5);
    const s = open(tg, customer);
    await s.log.next('session.created');
    say(s, 'Still talking at shutdown [[sim:hold]]');
    await s.log.next('response.output_audio.delta');
    // what app.close() runs first (preClose), and closeGateway again before the final flush
    await tg.gateway.realtime.closeAll();
    assert.deepEqual(await s.closed, { code: 1001, reason: 'server shutting down' });
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    assert.equal(5e9 - tg.balanceNano(customer.accountId), Math.round(rows[0].cost_usd * 1e9));
  });
});

describe('limits', () => {
  let tg: TestGateway;
  before(async () => {
    tg = await startTestGateway({ models: MODELS, env: { MODELGATE_REALTIME_MAX_FRAME_BYTES: '65536' } });
  });
  after(async () => {
    await tg.close();
  });

  test('a client frame above MODELGATE_REALTIME_MAX_FRAME_BYTES closes the session with 1009', async () => {
    const customer = await tg.customer(5);
    const s = open(tg, customer);
    await s.log.next('session.created');
    const upstream = tg.sim!.realtime.connections.at(-1)!;
    s.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(70_000) });
    assert.equal((await s.closed).code, 1009);
    assert.equal((await upstream.closed).code, 1000);
    assert.equal(upstream.received.filter((e) => e.type === 'input_audio_buffer.append').length, 0, 'the oversized frame was not relayed');
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('an upstream frame above the limit ends the session with 1009 for the client, unbilled', async () => {
    const customer = await tg.customer(5);
    const s = open(tg, customer);
    await s.log.next('session.created');
    // one 64 KiB audio delta is ~87 KB of JSON
    say(s, 'Send a big chunk [[sim:big-audio=1]]');
    assert.deepEqual(await s.closed, { code: 1009, reason: 'upstream message too large' });
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
    assert.equal(tg.balanceNano(customer.accountId), 5e9);
  });
});

describe('timers', () => {
  test('MODELGATE_REALTIME_MAX_SESSION_MS: an error event session_expired, then 1008', async () => {
    const tg = await startTestGateway({ models: MODELS, env: { MODELGATE_REALTIME_MAX_SESSION_MS: '300' } });
    try {
      const customer = await tg.customer(5);
      const s = open(tg, customer);
      await s.log.next('session.created');
      const opened = Date.now();
      const error = await s.log.next('error');
      assert.equal(error.error.code, 'session_expired');
      assert.deepEqual(await s.closed, { code: 1008, reason: 'session_expired' });
      assert.ok(Date.now() - opened >= 250, 'not before its time');
      await tg.sim!.realtime.connections.at(-1)!.closed;
      await noSessions(tg);
      await tg.assertBillingInvariants(customer.accountId);
    } finally {
      await tg.close();
    }
  });

  test('an idle session is closed; a peer that stops answering pings is dropped', async () => {
    const tg = await startTestGateway({ models: MODELS, env: { MODELGATE_REALTIME_IDLE_TIMEOUT_MS: '200', MODELGATE_REALTIME_PING_INTERVAL_MS: '40' } });
    try {
      const customer = await tg.customer(5);
      const idle = open(tg, customer);
      await idle.log.next('session.created');
      const error = await idle.log.next('error');
      assert.equal(error.error.code, 'session_idle_timeout');
      assert.deepEqual(await idle.closed, { code: 1008, reason: 'idle_timeout' });
      await noSessions(tg);

      // a client whose socket never answers pings (autoPong off), while frames keep it busy
      const mute = new WebSocket(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` }, autoPong: false } as never);
      mute.on('error', () => undefined);
      const closed = new Promise<number>((resolve) => mute.once('close', (code) => resolve(code)));
      await new Promise((resolve) => mute.once('open', resolve));
      // the gateway opens the upstream socket before it upgrades the client's
      const upstream = tg.sim!.realtime.connections.at(-1)!;
      assert.equal(tg.sim!.realtime.connections.length, 2);
      assert.equal(await closed, 1006, 'terminated without a close frame');
      assert.equal((await upstream.closed).code, 1000);
      await noSessions(tg);
      await tg.assertBillingInvariants(customer.accountId);
    } finally {
      await tg.close();
    }
  });
});

describe('server shutdown', () => {
  test('app.close() with sessions open: clients hear 1001 and the server closes (upgraded sockets do not hold it)', async () => {
    const tg = await startTestGateway({ models: MODELS });
    const customer = await tg.customer(5);
    const sessions = [open(tg, customer), open(tg, customer)];
    await Promise.all(sessions.map((s) => s.log.next('session.created')));
    const upstreams = tg.sim!.realtime.connections.slice(-2);
    await tg.app.close();
    for (const s of sessions) assert.deepEqual(await s.closed, { code: 1001, reason: 'server shutting down' });
    for (const u of upstreams) assert.equal((await u.closed).code, 1000);
    assert.equal(tg.gateway.realtime.live.size, 0);
    await tg.close();
  });
});

describe('pricing helper', () => {
  test('priceOf agrees with the catalogue (guards the tests above)', async () => {
    const tg = await startTestGateway({ models: MODELS });
    try {
      const models = await tg.admin('GET', '/admin/models');
      const p = models.body.data.find((m: any) => m.id === 'gpt-realtime').pricing;
      assert.deepEqual(
        [p.input_per_mtok, p.cached_input_per_mtok, p.output_per_mtok, p.audio_input_per_mtok, p.cached_audio_input_per_mtok, p.audio_output_per_mtok].map((usd: number) => Math.round(usd * 1000)),
        [...GPT_REALTIME.text, ...GPT_REALTIME.audio],
      );
      const usage = { input_tokens: 110, output_tokens: 50, input_token_details: { text_tokens: 100, audio_tokens: 10, cached_tokens: 20, cached_tokens_details: { text_tokens: 20, audio_tokens: 0 } }, output_token_details: { text_tokens: 10, audio_tokens: 40 } };
      assert.equal(priceOf(usage, GPT_REALTIME), 80 * 4000 + 20 * 400 + 10 * 16000 + 10 * 32000 + 40 * 64000);
    } finally {
      await tg.close();
    }
  });
});
