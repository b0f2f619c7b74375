// `npm run cluster` itself (scripts/cluster.ts, as a child process) with two instances on a fresh
// PostgreSQL schema and Redis, the vendor simulator as provider: instance 0 is the spec's regional
// base address and instance 1 the global one. What one instance does, the other sees: a provider
// change, a charge (the new balance within 1 s — the functional bound, not a benchmark),
// one rate limit, one set of holds, one verdict of the health probes; and an instance killed with
// SIGKILL loses no charge (the cluster restarts it with --restart, and the restart replays its
// settlement log).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { startOpenAISimulator } from '../../simulators/openai/server.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { PG_URL, postgresDatabase } from '../helpers/databases.ts';

const REDIS = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const database = postgresDatabase('cluster');
const dir = mkdtempSync(join(tmpdir(), 'modelgate-cluster-'));
const sim = await startOpenAISimulator({ apiKey: 'sim-upstream-key', latencyMs: 5 });
const db = new pg.Client({ connectionString: PG_URL });
// a provider that is down: it answers 500 to everything, health probes included, and notes in which
// probe slot (MODELGATE_HEALTH_INTERVAL_MS of the wall clock, as the instances count them) each came
const HEALTH_INTERVAL_MS = 3000;
const downHits: number[] = [];
const down = createServer((req, res) => {
  if (req.url?.endsWith('/models')) downHits.push(Math.floor(Date.now() / HEALTH_INTERVAL_MS));
  res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}');
});
await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));

let output = '';
const cluster = spawn(process.execPath, ['scripts/cluster.ts', '--instances', '2', '--restart'], {
  env: {
    ...process.env,
    PORT: '0',
    DATABASE_URL: database.url,
    REDIS_URL: REDIS,
    MODELGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    MODELGATE_DEMO: 'off',
    // one settlement-log directory and one media directory for the machine, as in a deployment
    MODELGATE_SETTLEMENT_LOG_DIR: join(dir, 'settlements'),
    MODELGATE_MEDIA_DIR: join(dir, 'media'),
    MODELGATE_SHUTDOWN_GRACE_MS: '2000',
    MODELGATE_HEALTH_INTERVAL_MS: String(HEALTH_INTERVAL_MS),
    MODELGATE_HEALTH_FAILURES: '2',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
cluster.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
cluster.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
const clusterExit = new Promise<number | null>((resolve) => cluster.once('exit', (code) => resolve(code)));

interface Member {
  role: string;
  pid: number;
  baseURL: string;
}
let regional: Member;
let global: Member;

/** Polls `condition` until it holds (a state of the gateways or the database, not a clock). */
async function until(what: string, condition: () => Promise<boolean>, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > limitMs) throw new Error(`still waiting for ${what}\n${output.slice(-4000)}`);
    await delay(50);
  }
}

async function admin<T = any>(member: Member, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(member.baseURL.slice(0, -'/v1'.length) + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function chat(member: Member, key: string, model = 'gpt-4o-mini', content = 'hi', maxTokens = 16) {
  const res = await fetch(`${member.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content }] }),
  });
  await res.arrayBuffer();
  return { status: res.status, id: res.headers.get('x-request-id') };
}

async function customer(creditUsd: number, keyBody: Record<string, unknown> = {}) {
  const account = await admin(regional, 'POST', '/admin/accounts', { name: `cluster-${Math.random().toString(36).slice(2, 8)}` });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  if (creditUsd > 0) assert.equal((await admin(regional, 'POST', `/admin/accounts/${account.body.id}/credit`, { amount_usd: creditUsd })).status, 200);
  const key = await admin(regional, 'POST', `/admin/accounts/${account.body.id}/keys`, keyBody);
  assert.equal(key.status, 201, JSON.stringify(key.body));
  return { accountId: account.body.id as string, keyId: key.body.id as string, key: key.body.key as string };
}

/** Until `member` knows the key: a model nobody serves is refused after the key is checked, and charges nothing. */
async function known(member: Member, key: string): Promise<void> {
  await until('the key on the other instance', async () => (await chat(member, key, 'no-such-model')).status !== 401);
}

const balance = async (member: Member, accountId: string) => Number((await admin(member, 'GET', `/admin/accounts/${accountId}`)).body.balance_usd);

before(async () => {
  await db.connect();
  await until('the cluster table', async () => {
    if (cluster.exitCode !== null) throw new Error(`the cluster exited (${cluster.exitCode}):\n${output}`);
    return output.includes('[cluster] regional = ');
  }, 180_000);
  const rows = [...output.matchAll(/^\[cluster\]\s+\d+\s+(regional|global)\s+(\d+)\s+(http:\/\/\S+\/v1)/gm)];
  const members = rows.map(([, role, pid, baseURL]) => ({ role: role!, pid: Number(pid), baseURL: baseURL! }));
  regional = members.find((m) => m.role === 'regional')!;
  global = members.find((m) => m.role === 'global')!;
  assert.ok(regional && global && regional.baseURL !== global.baseURL, `two addresses in the table:\n${output}`);
  const provider = await admin(regional, 'POST', '/admin/providers', { name: 'sim', type: 'openai', base_url: sim.baseUrl, api_key: 'sim-upstream-key', models: ['gpt-4o-mini'] });
  assert.equal(provider.status, 201, JSON.stringify(provider.body));
});

after(async () => {
  if (cluster.exitCode === null && cluster.signalCode === null) cluster.kill('SIGKILL');
  // instances the cluster had started, should it have died first
  for (const m of [regional, global]) if (m) try { process.kill(m.pid, 'SIGKILL'); } catch {}
  await db.end().catch(() => {});
  await database.drop();
  await sim.close();
  down.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a provider change made through the regional address takes effect on the global one', async () => {
  const c = await customer(1);
  await known(global, c.key);
  await until('the provider on the global instance', async () => (await chat(global, c.key)).status === 200);
  const [provider] = (await admin(regional, 'GET', '/admin/providers')).body.data as { id: string }[];
  assert.equal((await admin(regional, 'PATCH', `/admin/providers/${provider!.id}`, { enabled: false })).status, 200);
  await until('the disabled provider out of rotation on the global instance', async () => (await chat(global, c.key)).status !== 200);
  assert.equal((await admin(regional, 'PATCH', `/admin/providers/${provider!.id}`, { enabled: true })).status, 200);
  await until('the provider back on the global instance', async () => (await chat(global, c.key)).status === 200);
});

test('a key charged through one address shows its new balance through the other within 1 s', async (t) => {
  const c = await customer(1);
  await known(global, c.key);
  assert.equal(await balance(global, c.accountId), 1);
  const call = await chat(regional, c.key);
  assert.equal(call.status, 200);
  const answered = Date.now();
  const after = await balance(regional, c.accountId);
  assert.ok(after < 1, `the regional instance charged the call (balance ${after})`);
  // polled without pause; the answer that shows the new balance must come back within 1 s of the call's
  let seenAfterMs = 0;
  for (;;) {
    const shown = await balance(global, c.accountId);
    seenAfterMs = Date.now() - answered;
    if (shown === after || seenAfterMs > 1000) break;
  }
  t.diagnostic(`the global instance showed the new balance ${seenAfterMs} ms after the regional one answered`);
  assert.ok(seenAfterMs <= 1000, `the global instance still showed the old balance ${seenAfterMs} ms after the call was answered`);
  const { rows } = await db.query(`SELECT COUNT(*)::int AS n FROM "${schemaOf(database.url)}".ledger WHERE request_id = $1`, [call.id]);
  assert.equal(rows[0].n, 1, 'one journal entry for the call');
});

test('one rate limit across both addresses', async () => {
  const rpm = 4;
  const c = await customer(1, { rpm });
  await known(global, c.key);
  const statuses: number[] = [];
  // the global instance's answer to known()'s probe (404, an unserved model) was the minute's first request
  const left = rpm - 1;
  for (let i = 0; i < 2 * left; i++) statuses.push((await chat(i % 2 === 0 ? regional : global, c.key)).status);
  assert.equal(statuses.filter((s) => s === 200).length, left, `rpm=${rpm} over both instances: ${statuses.join(',')}`);
  assert.deepEqual(statuses.slice(left), Array(left).fill(429), `the calls past the limit are refused on both: ${statuses.join(',')}`);
});

test('one set of holds: a credit that covers one request admits one of four sent to both addresses at once', async () => {
  // max_tokens 1000 reserves ~0.6 mUSD (gpt-4o-mini output at $0.60/Mtok): $0.0009 covers one, not two
  const c = await customer(0.0009);
  await known(global, c.key);
  await known(regional, c.key);
  // a slow answer keeps the first admitted request's hold in place while the others arrive
  const slow = '[[sim:slow=3000]] hi';
  const statuses = (await Promise.all([regional, global, regional, global].map((m) => chat(m, c.key, 'gpt-4o-mini', slow, 1000)))).map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, `one admitted: ${statuses.join(',')}`);
  assert.equal(statuses.filter((s) => s === 402).length, 3, `the others refused for the balance: ${statuses.join(',')}`);
});

test('an instance killed with SIGKILL after its calls loses no charge', async () => {
  const c = await customer(1);
  await known(global, c.key);
  const served: string[] = [];
  for (let i = 0; i < 6; i++) {
    const call = await chat(global, c.key);
    assert.equal(call.status, 200);
    served.push(call.id!);
  }
  process.kill(global.pid, 'SIGKILL');
  await until('the cluster restarting the killed instance', async () => /\[cluster\] instance 1 restarted: pid \d+/.test(output));
  global = { ...global, pid: Number(/\[cluster\] instance 1 restarted: pid (\d+) at (\S+)/.exec(output)![1]), baseURL: /\[cluster\] instance 1 restarted: pid \d+ at (\S+)/.exec(output)![1]! };
  // the restart has replayed what the killed process had logged and not flushed, before listening
  const { rows } = await db.query(`SELECT request_id FROM "${schemaOf(database.url)}".ledger WHERE account_id = $1 AND kind = 'charge'`, [c.accountId]);
  const charged = new Set(rows.map((r) => String(r.request_id)));
  assert.deepEqual(served.filter((id) => !charged.has(id)), [], 'every answered call is charged');
  const { rows: sums } = await db.query(
    `SELECT COALESCE(SUM(amount_nano), 0) AS journal, (SELECT balance_nano FROM "${schemaOf(database.url)}".accounts WHERE id = $1) AS balance FROM "${schemaOf(database.url)}".ledger WHERE account_id = $1`,
    [c.accountId],
  );
  assert.equal(Number(sums[0].balance), Number(sums[0].journal), 'balance = journal sum');
  // the restarted instance serves again, at the address the cluster printed
  assert.equal((await chat(global, c.key)).status, 200);
});

test('health is shared: one probe per slot for both instances, and both take the failing provider out of rotation', async () => {
  const port = (down.address() as AddressInfo).port;
  const created = await admin(regional, 'POST', '/admin/providers', { name: 'down', type: 'openai', base_url: `http://127.0.0.1:${port}/v1`, api_key: 'k', models: ['gpt-4o'] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const outOfRotation = async (member: Member) => {
    const res = await fetch(member.baseURL.slice(0, -'/v1'.length) + '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return /^modelgate_provider_healthy\{provider="down"\} 0$/m.test(await res.text());
  };
  await until('the provider out of rotation on both instances', async () => (await outOfRotation(regional)) && (await outOfRotation(global)));
  assert.ok(downHits.length >= 2, `two failed probes took it out (${downHits.length} seen)`);
  // each instance probing for itself would probe twice a slot
  assert.equal(new Set(downHits).size, downHits.length, `one probe per slot across both instances (slots ${downHits.join(',')})`);
});

test('SIGTERM stops every instance cleanly', async () => {
  cluster.kill('SIGTERM');
  assert.equal(await clusterExit, 0, output.slice(-4000));
  assert.match(output, /\[cluster\] stopped\n/);
});

function schemaOf(url: string): string {
  return new URL(url).searchParams.get('schema')!;
}
