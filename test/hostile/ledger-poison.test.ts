// Issue 17, finding 2: "a usage row that SQLite could not bind ('Provided value cannot be bound to
// SQLite parameter 56'): a model that is a JSON array travels as is into the usage row. The
// write-behind flush then failed and retried the same batch forever: every later charge stayed
// in memory only, and GET /admin/usage and POST /admin/accounts answered 500 until a restart."
//
// Rows are put straight into the recorder and the ledger (gateway.sync.recordUsage,
// gateway.ledger.adjust), below any route validation, on the gateway's real databases: an SQLite
// file (flushed by the worker thread) and PostgreSQL. Then: later charges are flushed (balance =
// journal sum in the database), a row only the database refuses is in dead_letters with its
// error, /readyz and /metrics show it and the flush lag back to 0, the admin API answers 200
// throughout, and a database that is briefly unavailable loses nothing and dead-letters nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import OpenAI from 'openai';
import pg from 'pg';
import { newId } from '../../src/core/ids.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { bothDatabases, PG_URL, postgresDatabase, uniqueName } from '../helpers/databases.ts';
import { ADMIN_TOKEN, startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { installRefusals, REFUSED_MODEL } from '../helpers/refusals.ts';

/** Polls `check` until it returns a value (not undefined); fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Readyz {
  status: string;
  flush?: { lag_ms: number; pending_writes: number; dead_letters: number; stuck_journal_entries: number };
}

for (const database of bothDatabases('poison')) {
  describe(`a poisoned row on ${database.name} does not halt billing`, () => {
    const applicationName = uniqueName('mg_poison');
    let tg: TestGateway;
    let customer: Customer;
    let client: OpenAI;

    before(async () => {
      // the application name lets the outage test find this gateway's PostgreSQL sessions, and no one else's
      tg = await startTestGateway({ databaseUrl: database.name === 'postgres' ? `${database.url}&application_name=${applicationName}` : database.url });
      await installRefusals(tg.gateway.store.db, database.name);
      customer = await tg.customer(10);
      client = new OpenAI({ baseURL: tg.baseURL, apiKey: customer.key, maxRetries: 0 });
    });
    after(async () => {
      await tg?.close();
      await database.drop();
    });

    const readyz = async () => {
      const res = await fetch(`${tg.origin}/readyz`);
      return { status: res.status, body: (await res.json()) as Readyz };
    };
    const metric = async (name: string) => {
      const res = await fetch(`${tg.origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(res.status, 200);
      const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.split(' ')[1]);
    };
    /** the admin read and write paths the finding saw answer 500 */
    const adminAnswers = async () => {
      const usage = await tg.admin('GET', `/admin/usage?account_id=${customer.accountId}`);
      assert.equal(usage.status, 200, `GET /admin/usage: ${JSON.stringify(usage.body)}`);
      const account = await tg.admin('POST', '/admin/accounts', { name: `bystander-${newId('n')}` });
      assert.equal(account.status, 201, `POST /admin/accounts: ${JSON.stringify(account.body)}`);
    };
    const chat = async () => {
      const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
      return completion.id;
    };
    const usageRequestIds = async () =>
      (await tg.gateway.store.db.selectFrom('usage_log').select('request_id').where('account_id', '=', customer.accountId).execute()).map((r) => r.request_id);
    const flushed = () => until('the flush lag back to 0', async () => {
      const { status, body } = await readyz();
      return status === 200 && body.flush?.lag_ms === 0 && body.flush.pending_writes === 0 ? body : undefined;
    });
    const row = (patch: Partial<Record<keyof NewUsageRow, unknown>>): NewUsageRow =>
      ({
        request_id: newId('req'), created_at: Date.now(), account_id: customer.accountId, key_id: customer.keyId, model: 'gpt-4o-mini', endpoint: '/v1/videos',
        provider_id: null, status: 200, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, units: 0, cost_nano: 0, latency_ms: 1, estimated: 0,
        error_type: null, session_id: null, ...patch,
      }) as NewUsageRow;

    test('a model that is an array, NaN tokens, NUL, lone surrogates and a 1 MB string: later charges are still written', async () => {
      const poison = row({
        model: ['gpt-4o', { nested: { deeper: [1, 2] } }],
        prompt_tokens: Number.NaN,
        completion_tokens: Number.POSITIVE_INFINITY,
        error_type: 'bad\0value\ud800',
        session_id: 's'.repeat(1 << 20),
      });
      tg.gateway.sync.recordUsage(poison);
      // and through the ledger: an amount that is not a number, a note with NUL and a lone surrogate
      tg.gateway.ledger.adjust(customer.accountId, Number.NaN, 'credit', `credit:nan:${newId('k')}`, 'nan\0\udc00');
      // and a charge whose usage row (kept with it in the settlement log) has a model nested 100,000 deep
      const deep: unknown[] = [];
      let level = deep;
      for (let i = 0; i < 100_000; i++) level = (level[0] = []) as unknown[];
      const hold = tg.gateway.ledger.reserve(customer.accountId, null, 1_000);
      const requestId = newId('req');
      tg.gateway.ledger.settle(hold, 1_000, { entryKey: `charge:${requestId}`, requestId, usage: row({ request_id: requestId, model: deep }) });
      await adminAnswers();

      const answered = [await chat(), await chat(), await chat()];
      assert.equal(answered.length, 3);
      await adminAnswers();
      await tg.assertBillingInvariants(customer.accountId); // balance = journal sum, in the database and in memory
      assert.ok(tg.balanceNano(customer.accountId) < 10_000_000_000, 'the chats were charged');

      const stored = await tg.gateway.store.db.selectFrom('usage_log').selectAll().where('request_id', '=', poison.request_id).executeTakeFirstOrThrow();
      assert.equal(stored.model, '["gpt-4o",{"nested":{"deeper":[1,2]}}]');
      assert.equal(Number(stored.prompt_tokens), 0);
      assert.equal(Number(stored.completion_tokens), 2_147_483_647);
      assert.equal(stored.error_type, 'badvalue\ufffd');
      assert.equal(stored.session_id?.length, 256);
      const chatRows = (await usageRequestIds()).filter((id) => id !== poison.request_id);
      assert.ok(chatRows.length >= 3, 'the usage rows of the chats after the poison are in the database');
      const ready = await flushed();
      assert.equal(ready.flush?.stuck_journal_entries, 0);
    });

    test('a row only the database refuses goes to dead_letters with its error; /readyz and /metrics say so', async () => {
      const before = (await readyz()).body.flush!.dead_letters;
      const refused = row({ model: REFUSED_MODEL });
      tg.gateway.sync.recordUsage(refused);
      await adminAnswers(); // the flush ran here: the refused row is set aside, the rest written
      const first = await chat();
      // a journal note the database refuses: the entry is written with a sanitised note
      const creditKey = `credit:${customer.accountId}:${newId('k')}`;
      tg.gateway.ledger.adjust(customer.accountId, 1_000, 'credit', creditKey, 'crédit ☕');
      const second = await chat();
      await adminAnswers();

      const ready = await flushed();
      assert.equal(ready.flush?.dead_letters, before + 1);
      assert.equal(await metric('modelgate_dead_letters_total'), before + 1);
      assert.equal(await metric('modelgate_flush_lag_seconds'), 0);
      assert.equal(await metric('modelgate_pending_writes'), 0);
      const letters = await tg.gateway.store.db.selectFrom('dead_letters').selectAll().where('row_key', '=', refused.request_id).execute();
      assert.equal(letters.length, 1);
      assert.equal(letters[0]!.table_name, 'usage_log');
      assert.match(letters[0]!.error, /constraint/i);
      assert.equal(JSON.parse(letters[0]!.row_json).model, REFUSED_MODEL);
      assert.ok(!(await usageRequestIds()).includes(refused.request_id));
      assert.ok([first, second].every(Boolean));
      const credit = await tg.gateway.store.db.selectFrom('ledger').selectAll().where('entry_key', '=', creditKey).executeTakeFirstOrThrow();
      assert.equal(credit.note, 'sanitised: cr?dit ?');
      assert.equal(Number(credit.amount_nano), 1_000);
      await tg.assertBillingInvariants(customer.accountId);
    });

    test('a database briefly unavailable dead-letters nothing and loses nothing', async () => {
      const lettersBefore = (await readyz()).body.flush!.dead_letters;
      const failuresBefore = (await metric('modelgate_flush_failures_total')) ?? 0;
      const rowsBefore = (await usageRequestIds()).length;
      const release = database.name === 'sqlite' ? await lockSqlite(database.url) : await holdAndKillPostgres(applicationName, database.url);
      await chat();
      await chat();
      await until('a flush to fail', async () => ((await metric('modelgate_flush_failures_total')) ?? 0) > failuresBefore || undefined);
      // the readers answer from what is committed meanwhile
      const reading = tg.admin('GET', `/admin/usage?account_id=${customer.accountId}`);
      await release();
      assert.equal((await reading).status, 200);
      await flushed();
      assert.equal((await readyz()).body.flush?.dead_letters, lettersBefore, 'nothing dead-lettered');
      assert.equal(await tg.gateway.store.db.selectFrom('dead_letters').select('id').execute().then((r) => r.length), lettersBefore);
      assert.equal((await usageRequestIds()).length, rowsBefore + 2, 'both usage rows written once the database is back');
      await tg.assertBillingInvariants(customer.accountId);
      await adminAnswers();
    });

    test('a journal entry refused even sanitised is kept, counted loudly, and written once the database takes it', async () => {
      const orphanAccount = newId('acct'); // no such account yet: the journal's foreign key refuses the entry
      const entryKey = `credit:${orphanAccount}:${newId('k')}`;
      tg.gateway.ledger.adjust(orphanAccount, 5_000, 'credit', entryKey, 'for an account that is not there yet');
      await chat();
      await adminAnswers();
      const stuck = await until('the entry to be reported stuck', async () => ((await metric('modelgate_journal_entries_stuck')) === 1 ? true : undefined));
      assert.ok(stuck);
      const { body } = await readyz();
      assert.equal(body.flush?.stuck_journal_entries, 1);
      assert.ok(body.flush!.pending_writes >= 1, 'the entry is still queued');
      await tg.assertBillingInvariants(customer.accountId); // everyone else's writes go on
      // the account appears (here: inserted behind the gateway's back); the next flush writes the entry
      await tg.gateway.repos.accounts.insert({ id: orphanAccount, name: 'late', email: null });
      await flushed();
      assert.equal(await metric('modelgate_journal_entries_stuck'), 0);
      const written = await tg.gateway.store.db.selectFrom('ledger').selectAll().where('entry_key', '=', entryKey).execute();
      assert.equal(written.length, 1);
      assert.equal(Number(written[0]!.amount_nano), 5_000);
      assert.equal((await readyz()).body.flush?.dead_letters, (await metric('modelgate_dead_letters_total')), 'journal entries never dead-lettered');
    });
  });
}

describe('/readyz says not ready while writes wait longer than MODELGATE_FLUSH_LAG_READY_MS', () => {
  const database = postgresDatabase('flush_lag');
  let tg: TestGateway;
  before(async () => {
    tg = await startTestGateway({ databaseUrl: database.url, env: { MODELGATE_FLUSH_LAG_READY_MS: '200' } });
  });
  after(async () => {
    await tg?.close();
    await database.drop();
  });

  test('a flush held up by the database: 503 with the lag, then ready again once the writes are in', async () => {
    const customer = await tg.customer(1);
    const release = await holdChangeCounter(database.url);
    try {
      const client = new OpenAI({ baseURL: tg.baseURL, apiKey: customer.key, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
      const waiting = await until('/readyz to say not ready', async () => {
        const res = await fetch(`${tg.origin}/readyz`);
        return res.status === 503 ? ((await res.json()) as Readyz & { reason?: string }) : undefined;
      });
      assert.equal(waiting.reason, 'flush_lag');
      assert.ok(waiting.flush!.lag_ms > 200);
    } finally {
      await release();
    }
    const ready = await until('/readyz to say ready', async () => {
      const res = await fetch(`${tg.origin}/readyz`);
      return res.status === 200 ? ((await res.json()) as Readyz) : undefined;
    });
    assert.equal(ready.flush?.lag_ms, 0);
    await tg.assertBillingInvariants(customer.accountId);
  });
});

/** Holds the change counter's row lock: every flush waits inside its transaction until released. */
async function holdChangeCounter(url: string): Promise<() => Promise<void>> {
  const schema = new URL(url).searchParams.get('schema')!;
  const holder = new pg.Client({ connectionString: PG_URL, options: `-c search_path="${schema}"` });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`SELECT value FROM meta WHERE name = 'seq' FOR UPDATE`);
  return async () => {
    await holder.query('COMMIT');
    await holder.end();
  };
}

/** Holds SQLite's write lock from another connection: every write waits, then fails with "database is locked". */
async function lockSqlite(url: string): Promise<() => Promise<void>> {
  const db = new DatabaseSync(url.slice('sqlite:'.length));
  db.exec('BEGIN IMMEDIATE');
  return async () => {
    db.exec('ROLLBACK');
    db.close();
  };
}

/**
 * Holds the change counter's row lock, so the gateway's next flush waits inside its transaction;
 * kills that session (pg_terminate_backend) once it waits, and lets go when released.
 */
async function holdAndKillPostgres(applicationName: string, url: string): Promise<() => Promise<void>> {
  const schema = new URL(url).searchParams.get('schema')!;
  const holder = new pg.Client({ connectionString: PG_URL, options: `-c search_path="${schema}"` });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`SELECT value FROM meta WHERE name = 'seq' FOR UPDATE`);
  let killed = false;
  const killer = (async () => {
    const deadline = Date.now() + 30_000;
    while (!killed && Date.now() < deadline) {
      const { rows } = await holder.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
        [applicationName],
      );
      for (const { pid } of rows) {
        await holder.query('SELECT pg_terminate_backend($1)', [pid]);
        killed = true;
      }
      if (!killed) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return async () => {
    await killer;
    assert.ok(killed, 'the flush was caught waiting and its session killed');
    await holder.query('COMMIT');
    await holder.end();
  };
}
