// Two instances on one PostgreSQL schema and Redis: a key revoked (or its account disabled)
// through one instance's admin API ends the realtime sessions it holds on the other, which learns
// of the change from its state sync; the session's hold is released everywhere.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { DEFAULT_MODELS, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { startGatewayPair, type GatewayPair } from '../helpers/gateway-pair.ts';
import { noSessions, rawSession, realtimeUrl, REALTIME_MODELS, type RawSession } from '../helpers/realtime.ts';

let a: TestGateway;
let b: TestGateway;
let redis: Redis;
let pair: GatewayPair;

before(async () => {
  pair = await startGatewayPair('rt_revoke', { models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
  ({ a, b, redis } = pair);
});

after(() => pair.close());

/** the shared holds of an account, as Redis has them (each check is a round trip, not a timer) */
async function sharedHolds(accountId: string, count: number): Promise<void> {
  while ((await redis.zcard(`mg:holds:${accountId}`)) !== count) await redis.ping();
}

async function sessionOnA(customer: Customer): Promise<RawSession> {
  const s = rawSession(realtimeUrl(a, 'gpt-realtime'), { headers: { authorization: `Bearer ${customer.key}` } });
  await s.log.next('session.created');
  await sharedHolds(customer.accountId, 1);
  return s;
}

test('a key revoked through instance B closes its session on instance A with 1008', { timeout: 15_000 }, async () => {
  const customer = await a.customer(5);
  const s = await sessionOnA(customer);
  assert.equal((await b.admin('DELETE', `/admin/keys/${customer.keyId}`)).status, 200);
  const closed = await s.closed;
  assert.equal(closed.code, 1008);
  assert.equal(closed.reason, 'key_revoked');
  assert.equal(s.log.ofType('error').at(-1)?.error.code, 'key_revoked');
  await noSessions(a);
  await sharedHolds(customer.accountId, 0);
  await a.assertBillingInvariants(customer.accountId);
});

test('an account disabled through instance B closes its session on instance A with 1008', { timeout: 15_000 }, async () => {
  const customer = await a.customer(5);
  const s = await sessionOnA(customer);
  assert.equal((await b.admin('PATCH', `/admin/accounts/${customer.accountId}`, { disabled: true })).status, 200);
  const closed = await s.closed;
  assert.equal(closed.code, 1008);
  assert.equal(closed.reason, 'account_disabled');
  await noSessions(a);
  await sharedHolds(customer.accountId, 0);
  await a.assertBillingInvariants(customer.accountId);
});
