import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import pino from 'pino';
import { SharedHolds } from '../../src/billing/shared-holds.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { REDIS_URL, startGatewayPair, type GatewayPair } from '../helpers/gateway-pair.ts';

let a: TestGateway;
let b: TestGateway;
let redis: Redis;
let pair: GatewayPair;

before(async () => {
  // a slow upstream keeps every request in flight at once, so all reservations overlap
  pair = await startGatewayPair('mi', { simulator: { latencyMs: 1500 } });
  ({ a, b, redis } = pair);
});

after(() => pair.close());

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
  const connections = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
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

test('a settled hold stays counted by the other instances until their store shows the charge', async () => {
  const log = pino({ level: 'silent' });
  const connections = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  let seenA = 10;
  let seenB = 10;
  const first = new SharedHolds(connections[0]!, log, { seen: () => seenA });
  const second = new SharedHolds(connections[1]!, log, { seen: () => seenB });
  const account = `acct_pending_${Date.now()}`;
  await new Promise((resolve) => setImmediate(resolve));

  const hold = await first.acquire(account, 600, 1000);
  first.settle(hold, account, 'charge:req_1', 500);
  await connections[0]!.ping(); // sent without waiting: a round trip on its connection makes sure it arrived
  // B's balance (1000) does not include A's charge yet: 500 of it is spent, 400 cannot be admitted twice over
  await assert.rejects(second.acquire(account, 600, 1000), /Insufficient balance/);
  const fits = await second.acquire(account, 500, 1000);
  second.release(fits);

  // A's flush committed the charge and A's poll came back at 12; B has seen up to 11 only
  seenA = 12;
  first.visible([{ entryKey: 'charge:req_1', accountId: account, keyId: null, requestId: 'req_1', kind: 'charge', amountNano: -500, note: null, createdAt: 0 }], 12);
  await connections[0]!.ping();
  await assert.rejects(second.acquire(account, 600, 1000), /Insufficient balance/, 'still counted while B has not seen it');
  // once B's store shows it (seen 12, balance 500), it is counted once: in the balance
  seenB = 12;
  const after = await second.acquire(account, 500, 500);
  assert.ok(after, 'the charge is no longer counted twice');
  second.release(after);
  // a charge is closed once: settling or releasing the hold again changes nothing
  first.settle(hold, account, 'charge:req_1', 500);
  first.release(hold);
  await first.close();
  await second.close();
  for (const c of connections) c.disconnect();
});

test('a job hold outlives its instance until another takes the job over, and is settled once', async () => {
  const log = pino({ level: 'silent' });
  const connections = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  const crashed = new SharedHolds(connections[0]!, log);
  const survivor = new SharedHolds(connections[1]!, log);
  const account = `acct_job_${Date.now()}`;
  await new Promise((resolve) => setImmediate(resolve));
  const request = await crashed.acquire(account, 700, 1000);
  crashed.takeOver(account, 'video_1', 700, Date.now() + 60_000, request);
  await crashed.close(); // gone, as after a crash once its heartbeat lapsed
  await assert.rejects(survivor.acquire(account, 400, 1000), /Insufficient balance/, "the dead instance's job hold still counts");
  const taken = survivor.takeOver(account, 'video_1', 700, Date.now() + 60_000);
  const members = await connections[1]!.zrange(`mg:holds:${account}`, '0', '-1');
  assert.deepEqual(members, [`${survivor.instance}|job:video_1|700`], 'one registration of the job, by the instance working on it');
  survivor.release(taken);
  const hold = await survivor.acquire(account, 900, 1000);
  assert.ok(hold, 'released once the job ended');
  survivor.release(hold);
  await survivor.close();
  for (const c of connections) c.disconnect();
});

test('extend grows a hold only when the balance covers the new amount', async () => {
  const log = pino({ level: 'silent' });
  const connection = new Redis(REDIS_URL);
  const holds = new SharedHolds(connection, log);
  const account = `acct_extend_${Date.now()}`;
  await new Promise((resolve) => setImmediate(resolve));
  const hold = await holds.acquire(account, 300, 1000);
  await holds.extend(hold, 800, 1000);
  assert.equal(hold?.amount, 800);
  await assert.rejects(holds.extend(hold, 1200, 1000), /Insufficient balance/);
  assert.equal(hold?.amount, 800, 'a refused extension leaves the hold as it was');
  assert.deepEqual(await connection.zrange(`mg:holds:${account}`, '0', '-1'), [hold!.member]);
  holds.release(hold);
  await holds.close();
  connection.disconnect();
});
