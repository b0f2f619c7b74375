// A realtime response and a finished video job are settled like any HTTP call: the charge and the
// usage row go into the settlement log together. A gateway (a process of its own) settles one of
// each while its write-behind cannot reach the database (the test holds the journal and usage
// tables locked), is killed with SIGKILL, and the next gateway on the same database replays the
// log: both charges and both usage rows are there, exactly once, and balance = journal sum — also
// after the video job, which the dead process never marked completed, is worked again.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import OpenAI from 'openai';
import pg from 'pg';
import { startOpenAISimulator } from '../../simulators/openai/server.ts';
import { addCustomer, addSimProvider, startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';
import { PG_URL, postgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { rawSession, textTurn } from '../helpers/realtime.ts';

const database = postgresDatabase('killsessions');
const dir = mkdtempSync(join(tmpdir(), 'modelgate-kill-sessions-'));
const logDir = join(dir, 'settlements');
const children: ChildGateway[] = [];
let restarted: TestGateway | undefined;
after(async () => {
  for (const child of children) await child.kill9();
  await restarted?.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls `condition` (a file's or the database's state, not a clock) until it holds. */
async function until(what: string, condition: () => boolean | Promise<boolean>, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > limitMs) throw new Error(`still waiting for ${what}`);
    await delay(50);
  }
}

/** every line the settlement logs in `logDir` hold */
function loggedLines(): string[] {
  return readdirSync(logDir).flatMap((name) => readFileSync(join(logDir, name), 'utf8').split('\n').filter((line) => line !== ''));
}

test('kill -9 after a realtime response and a video job were settled: the replay restores their charges and usage rows, once', async () => {
  const sim = await startOpenAISimulator({ apiKey: 'sim-upstream-key', latencyMs: 1 });
  const db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
  const schema = new URL(database.url).searchParams.get('schema')!;
  const lock = new pg.Client({ connectionString: PG_URL });
  await lock.connect();
  try {
    // no flush of its own (only the video worker's); the worker polls at once; a short lease for the restart to take the job over
    const env = { DATABASE_URL: database.url, MODELGATE_SETTLEMENT_LOG_DIR: logDir, MODELGATE_MEDIA_DIR: join(dir, 'media'), MODELGATE_SYNC_INTERVAL_MS: '60000', MODELGATE_JOB_POLL_MS: '100', MODELGATE_JOB_LEASE_MS: '1000' };
    const first = await startChildGateway(env);
    children.push(first);
    await addSimProvider(first, sim.baseUrl, ['gpt-realtime', 'sora-2']);
    const customer = await addCustomer(first, 10);
    await db.query(`SET search_path TO "${schema}"`);

    // from here on the write-behind of the first gateway cannot commit: what it settles lives in its log only
    await lock.query(`SET search_path TO "${schema}"`);
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE ledger, usage_log IN EXCLUSIVE MODE');

    const session = rawSession(`${first.origin.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${customer.key}` } });
    await session.opened;
    const done = await textTurn(session, 'hello');
    const responseId = String(done.response.id);
    assert.ok(done.response.usage, 'the response reports usage');

    const video = await new OpenAI({ apiKey: customer.key, baseURL: first.baseURL, maxRetries: 0 }).videos.create({ model: 'sora-2', prompt: 'a boat [[sim:polls=2]]', seconds: '4' });
    assert.equal(video.status, 'queued');
    await until('both settlements in the log', () => {
      const lines = loggedLines();
      return lines.some((line) => line.includes(`:${responseId}"`)) && lines.some((line) => line.includes(`"charge:video:${video.id}"`));
    });
    await first.kill9();
    session.ws.terminate();
    await lock.query('ROLLBACK');

    const charges = async () => (await db.query('SELECT entry_key, amount_nano FROM ledger WHERE account_id = $1 AND kind = $2', [customer.accountId, 'charge'])).rows;
    const usageRows = async () => (await db.query('SELECT request_id, endpoint, cost_nano, units, session_id FROM usage_log WHERE account_id = $1 AND cost_nano > 0 ORDER BY endpoint', [customer.accountId])).rows;
    assert.deepEqual(await charges(), [], 'nothing of the killed process reached the database');

    // the next gateway on the same database and log directory replays the log before it listens; its worker waits to be ticked
    restarted = await startTestGateway({ databaseUrl: database.url, simulator: false, env: { MODELGATE_SETTLEMENT_LOG_DIR: logDir, MODELGATE_MEDIA_DIR: join(dir, 'media-2'), MODELGATE_JOB_POLL_MS: '0' } });
    const expectOnce = async () => {
      const byKey = new Map((await charges()).map((row) => [String(row.entry_key), -Number(row.amount_nano)]));
      assert.equal(byKey.size, 2, `one charge each: ${[...byKey.keys()].join(', ')}`);
      const realtimeCharge = [...byKey].find(([key]) => key.endsWith(`:${responseId}`))?.[1];
      const videoCharge = byKey.get(`charge:video:${video.id}`);
      assert.ok(realtimeCharge && realtimeCharge > 0 && videoCharge && videoCharge > 0, 'both are charged');
      const rows = await usageRows();
      assert.equal(rows.length, 2, `one usage row each: ${rows.map((row) => row.request_id).join(', ')}`);
      const [realtimeRow, videoRow] = rows as [pg.QueryResultRow, pg.QueryResultRow];
      assert.equal(realtimeRow.endpoint, '/v1/realtime');
      assert.match(String(realtimeRow.request_id), new RegExp(`:${responseId}$`));
      assert.equal(Number(realtimeRow.cost_nano), realtimeCharge);
      assert.ok(realtimeRow.session_id, 'the realtime row names its session');
      assert.equal(videoRow.endpoint, '/v1/videos');
      assert.match(String(videoRow.request_id), /:settle$/);
      assert.equal(Number(videoRow.cost_nano), videoCharge);
      assert.equal(Number(videoRow.units), 4);
      await restarted!.assertBillingInvariants(customer.accountId);
    };
    await expectOnce();

    // the job was never marked completed: the restarted worker takes it over once the dead lease lapsed and settles it again — a no-op
    const { rows: before } = await db.query('SELECT status, lease_expires_at FROM video_jobs WHERE id = $1', [video.id]);
    assert.notEqual(before[0]?.status, 'completed');
    await restarted.gateway.videoWorker.tick(Math.max(Date.now(), Number(before[0]?.lease_expires_at)) + 1);
    const { rows: jobs } = await db.query('SELECT status FROM video_jobs WHERE id = $1', [video.id]);
    assert.equal(jobs[0]?.status, 'completed');
    await expectOnce();
  } finally {
    await lock.end();
    await db.end();
    await sim.close();
  }
});
