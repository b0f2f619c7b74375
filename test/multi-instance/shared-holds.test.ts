import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import pino from 'pino';
import { SharedHolds } from '../../src/billing/shared-holds.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const PG = 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = 'redis://127.0.0.1:6379';
const schema = `mi_${process.pid}_${Date.now()}`;
let a: TestGateway;
let b: TestGateway;
let redis: Redis;

before(async () => {
  const url = `${PG}?schema=${schema}`;
  // a slow upstream keeps every request in flight at once, so all reservations overlap
  a = await startTestGateway({ databaseUrl: url, env: { REDIS_URL: REDIS }, simulator: { latencyMs: 1500 } });
  b = await startTestGateway({ databaseUrl: url, env: { REDIS_URL: REDIS }, simulator: false });
  redis = new Redis(REDIS);
});

after(async () => {
  await b.close();
  await a.close();
  redis.disconnect();
  const client = new pg.Client({ connectionString: PG });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

async function chat(gateway: TestGateway, key: string): Promise<number> {
  const res = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 1000, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

test('two instances sharing Redis cannot together reserve more than the balance', async () => {
  // each request reserves ~0.6 mUSD (1000 output tokens at $0.60/Mtok plus the prompt): $0.0025 covers four
  const customer = await a.customer(0.0025);
  await b.gateway.sync.now();
  assert.ok(b.gateway.keys.get(customer.keyId), 'instance B knows the key');

  const statuses = await Promise.all([...Array(5)].flatMap(() => [chat(a, customer.key), chat(b, customer.key)]));
  const ok = statuses.filter((s) => s === 200).length;
  const refused = statuses.filter((s) => s === 402).length;
  assert.equal(ok + refused, statuses.length, `only 200 and 402 expected, got ${statuses.join(',')}`);
  // without shared holds each instance would admit four (eight in all)
  assert.ok(ok >= 1 && ok <= 4, `admitted ${ok} of 10`);

  await b.gateway.sync.now();
  await a.gateway.sync.now();
  await a.assertBillingInvariants(customer.accountId);
  assert.ok(a.balanceNano(customer.accountId) >= 0);
  assert.equal(await redis.zcard(`mg:holds:${customer.accountId}`), 0, 'every shared hold is released');
});

test('the holds of an instance that stopped heartbeating are ignored', async () => {
  const log = pino({ level: 'silent' });
  const connections = [new Redis(REDIS), new Redis(REDIS)];
  const crashed = new SharedHolds(connections[0]!, log);
  const alive = new SharedHolds(connections[1]!, log);
  const account = `acct_crash_${Date.now()}`;
  await new Promise((resolve) => setImmediate(resolve));
  await crashed.acquire(account, 900, 1000);
  await assert.rejects(alive.acquire(account, 200, 1000), /Insufficient balance/);
  await crashed.close(); // its heartbeat key is gone, as after a crash once the TTL passes
  const hold = await alive.acquire(account, 200, 1000);
  assert.ok(hold, 'admitted once the dead instance no longer counts');
  alive.release(hold);
  await alive.close();
  for (const c of connections) c.disconnect();
});

test('a per-key rpm limit is shared by the instances through Redis', async () => {
  const customer = await a.customer(1, { rpm: 3 });
  await b.gateway.sync.now();
  const statuses = [await chat(a, customer.key), await chat(b, customer.key), await chat(a, customer.key), await chat(b, customer.key)];
  assert.deepEqual(statuses, [200, 200, 200, 429]);
});
