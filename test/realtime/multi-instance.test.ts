// Two instances on one PostgreSQL schema and Redis: a realtime session's standing hold is shared,
// so sessions of one account on different instances cannot together overspend.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { DEFAULT_MODELS, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startGatewayPair, type GatewayPair } from '../helpers/gateway-pair.ts';
import { expectRefusal, GPT_REALTIME, noSessions, priceOf, rawSession, realtimeUrl, REALTIME_MODELS, textTurn } from '../helpers/realtime.ts';

let a: TestGateway;
let b: TestGateway;
let redis: Redis;
let pair: GatewayPair;

before(async () => {
  pair = await startGatewayPair('rt_mi', { models: [...DEFAULT_MODELS, ...REALTIME_MODELS] });
  ({ a, b, redis } = pair);
});

after(() => pair.close());

/** the shared holds of an account, as Redis has them (each check is a round trip, not a timer) */
async function sharedHolds(accountId: string, count: number): Promise<void> {
  while ((await redis.zcard(`mg:holds:${accountId}`)) !== count) await redis.ping();
}

test('a session on one instance holds the balance against handshakes on the other; billing lands for both', async () => {
  // one reservation of ≈ $0.262 (4096 audio output tokens at $64/M) fits in $0.4, two do not
  const customer = await a.customer(0.4);
  await b.gateway.sync.now();
  const headers = { authorization: `Bearer ${customer.key}` };
  const s = rawSession(realtimeUrl(a, 'gpt-realtime'), { headers });
  await s.log.next('session.created');
  await sharedHolds(customer.accountId, 1);

  const refused = await expectRefusal(realtimeUrl(b, 'gpt-realtime'), { headers });
  assert.equal(refused.status, 402);
  assert.match(refused.body.error.message, /other gateway instances/);

  s.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
  await s.log.next('session.updated');
  const done = await textTurn(s, 'billed on A, seen on B');
  s.ws.close();
  await s.closed;
  await noSessions(a);
  await sharedHolds(customer.accountId, 0);
  await a.assertBillingInvariants(customer.accountId);
  await b.gateway.sync.now();
  const cost = priceOf(done.response.usage, GPT_REALTIME);
  assert.equal(b.balanceNano(customer.accountId), 0.4e9 - cost, 'instance B sees the charge');

  // with A's session gone, B admits one
  const t = rawSession(realtimeUrl(b, 'gpt-realtime'), { headers });
  await t.log.next('session.created');
  t.ws.close();
  await t.closed;
  await noSessions(b);
  await b.assertBillingInvariants(customer.accountId);
});
