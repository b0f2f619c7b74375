// A realtime session lives only as long as its key and account may be used (issue 18): when the
// operator revokes or disables the key, it expires, or the account is disabled, the session gets
// an error event saying so and is closed with 1008 within a sync cycle; the response it was running
// is cancelled and billed, and no hold is left behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_MODELS, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';
import { noSessions, rawSession, realtimeUrl, REALTIME_MODELS, type RawSession } from '../helpers/realtime.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway({ models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
});
after(async () => {
  await tg.close();
});

/** a text session with a response running upstream (it waits after its first delta) */
async function runningResponse(customer: Customer): Promise<RawSession> {
  const s = rawSession(realtimeUrl(tg, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
  await s.opened;
  s.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } } });
  await s.log.next('session.updated');
  s.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Keep talking [[sim:hold]]' }] } });
  s.send({ type: 'response.create' });
  await s.log.next('response.output_text.delta');
  return s;
}

/** the session was ended for `code`: an error event, then 1008; the running response billed, nothing held */
async function assertEndedFor(s: RawSession, customer: Customer, code: string): Promise<void> {
  const closed = await s.closed;
  assert.equal(closed.code, 1008);
  assert.equal(closed.reason, code);
  const error = s.log.ofType('error').at(-1);
  assert.ok(error, 'an error event came before the close');
  assert.equal(error.error.type, 'authentication_error');
  assert.equal(error.error.code, code);
  const upstream = tg.sim!.realtime.connections.at(-1)!;
  await upstream.closed;
  await noSessions(tg);
  assert.equal(upstream.received.filter((e) => e.type === 'response.cancel').length, 1, 'the running response was cancelled upstream');
  await tg.assertBillingInvariants(customer.accountId);
  const rows = await usageRows(tg, customer.accountId);
  assert.equal(rows.length, 1, 'the cancelled response was billed once');
  assert.equal(rows[0].status, 499);
  assert.ok(tg.balanceNano(customer.accountId) < 5e9);
}

describe('sessions end with their key', () => {
  test('the operator revokes the key', { timeout: 10_000 }, async () => {
    const customer = await tg.customer(5);
    const s = await runningResponse(customer);
    assert.equal((await tg.admin('DELETE', `/admin/keys/${customer.keyId}`)).status, 200);
    await assertEndedFor(s, customer, 'key_revoked');
  });

  test('the operator disables the key', { timeout: 10_000 }, async () => {
    const customer = await tg.customer(5);
    const s = await runningResponse(customer);
    assert.equal((await tg.admin('PATCH', `/admin/keys/${customer.keyId}`, { disabled: true })).status, 200);
    await assertEndedFor(s, customer, 'key_disabled');
  });

  test('the operator disables the account', { timeout: 10_000 }, async () => {
    const customer = await tg.customer(5);
    const s = await runningResponse(customer);
    assert.equal((await tg.admin('PATCH', `/admin/accounts/${customer.accountId}`, { disabled: true })).status, 200);
    await assertEndedFor(s, customer, 'account_disabled');
  });

  test('the key reaches its expiry while the session is open', { timeout: 10_000 }, async () => {
    const customer = await tg.customer(5, { expires_at: new Date(Date.now() + 1_500).toISOString() });
    const s = await runningResponse(customer);
    await assertEndedFor(s, customer, 'key_expired');
  });

  test('a session whose key stays valid is left alone by the checks', async () => {
    const customer = await tg.customer(5);
    const other = await tg.customer(5);
    const s = await runningResponse(customer);
    // another key changes: this session's key is still fine
    assert.equal((await tg.admin('DELETE', `/admin/keys/${other.keyId}`)).status, 200);
    await tg.gateway.sync.now();
    assert.equal(s.ws.readyState, s.ws.OPEN);
    s.send({ type: 'response.cancel' });
    const done = await s.log.next('response.done');
    assert.equal(done.response.status, 'cancelled');
    s.ws.close();
    await s.closed;
    await noSessions(tg);
    await tg.assertBillingInvariants(customer.accountId);
  });
});
