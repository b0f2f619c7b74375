// One balance that every instance admits against: two gateways (processes of their own) on one
// PostgreSQL schema and one Redis serve one account from both at once — chats and streams
// alternating between them, a video job whose hold moves to the survivor — and one is killed with
// SIGKILL midway. Whatever each instance's store has not caught up with yet, the account is never
// charged more than its credit plus one request's overrun, every answer a client received is
// charged (the killed one's log is replayed when it comes back), balance = journal sum, and no
// hold is left once the dead instance's lease has lapsed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import pg from 'pg';
import { startOpenAISimulator } from '../../simulators/openai/server.ts';
import { addCustomer, addSimProvider, startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';
import { PG_URL, postgresDatabase } from '../helpers/databases.ts';

const REDIS = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const database = postgresDatabase('onebalance');
const dir = mkdtempSync(join(tmpdir(), 'modelgate-one-balance-'));
const children: ChildGateway[] = [];
after(async () => {
  for (const child of children) await child.kill9();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls `condition` (a state of Redis or of the database, not a clock) until it holds. */
async function until(what: string, condition: () => Promise<boolean>, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > limitMs) throw new Error(`still waiting for ${what}`);
    await delay(100);
  }
}

test('two instances, one account: no overspend across them, a SIGKILL midway loses no charge and leaves no hold', async (t) => {
  const sim = await startOpenAISimulator({ apiKey: 'sim-upstream-key', latencyMs: 5, streamChunks: 4 });
  const redis = new Redis(REDIS);
  const db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
  const schema = new URL(database.url).searchParams.get('schema')!;
  await db.query(`SET search_path TO "${schema}"`);
  try {
    const common = { DATABASE_URL: database.url, REDIS_URL: REDIS, MODELGATE_SYNC_INTERVAL_MS: '250', MODELGATE_JOB_LEASE_MS: '4000' };
    // A accepts the video job and never polls it; B works on jobs as soon as their lease is free
    const envA = { ...common, MODELGATE_SETTLEMENT_LOG_DIR: join(dir, 'a'), MODELGATE_MEDIA_DIR: join(dir, 'media-a'), MODELGATE_JOB_POLL_MS: '600000' };
    const envB = { ...common, MODELGATE_SETTLEMENT_LOG_DIR: join(dir, 'b'), MODELGATE_MEDIA_DIR: join(dir, 'media-b'), MODELGATE_JOB_POLL_MS: '200' };
    const a = await startChildGateway(envA);
    children.push(a);
    await addSimProvider(a, sim.baseUrl, ['gpt-4o-mini', 'sora-2']);
    const b = await startChildGateway(envB);
    children.push(b);

    const chat = async (gateway: ChildGateway, key: string, stream: boolean) => {
      const res = await fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, stream, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await res.text();
      const complete = res.status === 200 && (!stream || text.includes('data: [DONE]'));
      return { status: res.status, complete, id: res.headers.get('x-request-id') };
    };

    // the price of one call, from a probe account's journal
    const probe = await addCustomer(a, 1);
    assert.equal((await chat(a, probe.key, false)).status, 200);
    let perCall = 0;
    await until('the probe charge', async () => {
      const { rows } = await db.query('SELECT amount_nano FROM ledger WHERE account_id = $1 AND kind = $2', [probe.accountId, 'charge']);
      perCall = rows.length === 1 ? -Number(rows[0].amount_nano) : 0;
      return perCall > 0;
    });

    // credit: a 4-second video ($0.10 a second) plus exactly 20 calls
    const videoNano = 400_000_000;
    const creditNano = videoNano + 20 * perCall;
    const customer = await addCustomer(a, creditNano / 1e9);
    await until('B knows the key', async () => (await chat(b, customer.key, false)).status !== 401);
    // (that call may have been served: it counts like any other below)
    const video = await new OpenAI({ apiKey: customer.key, baseURL: a.baseURL, maxRetries: 0 }).videos.create({ model: 'sora-2', prompt: 'a boat [[sim:polls=2]]', seconds: '4' });
    assert.equal(video.status, 'queued');

    const served: string[] = [];
    let attempts = 0;
    let killed = false;
    for (let i = 0; i < 200; i++) {
      // A, B, A, B…: plain and streamed calls on both; after the kill, B alone
      const onA = !killed && i % 2 === 0;
      const result = await chat(onA ? a : b, customer.key, i % 4 >= 2);
      attempts++;
      assert.ok(result.status === 200 || result.status === 402, `unexpected status ${result.status}`);
      if (result.complete) served.push(result.id!);
      if (!killed && served.length >= 8) {
        killed = true;
        await a.kill9();
      }
    }
    assert.ok(killed, 'A was killed midway');

    // the job moves to B (A's lease lapses), which completes and charges it
    await until('the video job completes on B', async () => {
      const { rows } = await db.query('SELECT status FROM video_jobs WHERE id = $1', [video.id]);
      return rows[0]?.status === 'completed';
    });
    // A comes back on its own settlement log: the charges it had not flushed are committed now
    const again = await startChildGateway(envA);
    children.push(again);

    const { rows: charges } = await db.query('SELECT request_id, amount_nano, note FROM ledger WHERE account_id = $1 AND kind = $2', [customer.accountId, 'charge']);
    const charged = new Set(charges.map((row) => String(row.request_id)));
    const unpaid = served.filter((id) => !charged.has(id));
    assert.deepEqual(unpaid, [], `${unpaid.length} of ${served.length} answers were delivered and not charged`);
    const total = charges.reduce((sum, row) => sum - Number(row.amount_nano), 0);
    t.diagnostic(`served ${served.length} of ${attempts} calls (credit covers 20 beside the video); charged ${total} of ${creditNano} nano-USD`);
    const largest = Math.max(...charges.filter((row) => row.note === null).map((row) => -Number(row.amount_nano)));
    assert.ok(charges.some((row) => row.note === `video ${video.id}`), 'the video job was charged');
    assert.ok(
      total <= creditNano + largest,
      `charged ${total} nano-USD on a credit of ${creditNano} (${served.length} calls served of ${attempts}, 20 covered): more than one request's overrun (${largest})`,
    );
    const { rows: sums } = await db.query('SELECT COALESCE(SUM(amount_nano), 0) AS journal, (SELECT balance_nano FROM accounts WHERE id = $1) AS balance FROM ledger WHERE account_id = $1', [customer.accountId]);
    assert.equal(Number(sums[0].balance), Number(sums[0].journal), 'balance = journal sum');

    // no hold left: the dead instance's lapse with its heartbeat; the job's went when it was charged
    await until('no hold of a live instance', async () => {
      const members = await redis.zrange(`mg:holds:${customer.accountId}`, '0', '-1');
      const owners = new Set(members.map((m) => m.split('|')[0]!));
      for (const owner of owners) if ((await redis.exists(`mg:instance:${owner}`)) === 1) return false;
      return true;
    });
    // any admission on the account drops the holds of instances that are gone (a top-up first, so that B admits one)
    assert.equal((await b.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: 1 })).status, 200);
    assert.equal((await chat(b, customer.key, false)).status, 200);
    assert.deepEqual(await redis.zrange(`mg:holds:${customer.accountId}`, '0', '-1'), [], 'no hold left in Redis');
    assert.equal(await again.stop(), 0);
    assert.equal(await b.stop(), 0);
  } finally {
    redis.disconnect();
    await db.end();
    await sim.close();
  }
});
