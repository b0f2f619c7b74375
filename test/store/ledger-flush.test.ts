// The write-behind flush on SQLite and PostgreSQL: journal rows, the balances and key spend they
// change, usage rows and key last-use, all in one transaction; an entry key is written once. On
// SQLite twice: through the query builder (the main thread's flush) and through the flush thread's
// own connection (src/store/sqlite-flush-connection.ts), which tells the rows it wrote otherwise.
import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { hashApiKey, keyHint } from '../../src/auth/key-hash.ts';
import { newApiKey, newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { accountsRepository, type AccountRecord } from '../../src/store/repositories/accounts.ts';
import { apiKeysRepository, type ApiKeyRecord } from '../../src/store/repositories/api-keys.ts';
import { encodeUsageRow, ledgerRepository, type LedgerEntry } from '../../src/store/repositories/ledger.ts';
import { usageRepository } from '../../src/store/repositories/usage.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { rowsOfBatch, writeBatch } from '../../src/store/flush-batch.ts';
import { compileFlushStatements } from '../../src/store/flush-statements.ts';
import type { WriteBatch } from '../../src/store/ledger-rows.ts';
import { sqliteFlushConnection } from '../../src/store/sqlite-flush-connection.ts';
import { openSqliteFile } from '../../src/store/sqlite-file.ts';
import { bothDatabases, sqliteDatabase } from '../helpers/databases.ts';

let counter = 0;
function entry(accountId: string, amountNano: number, patch: Partial<LedgerEntry> = {}): LedgerEntry {
  counter++;
  return {
    entryKey: `test:${counter}:${newId('e')}`,
    accountId,
    keyId: null,
    requestId: null,
    kind: amountNano >= 0 ? 'credit' : 'charge',
    amountNano,
    note: null,
    createdAt: Date.now(),
    ...patch,
  };
}

function usageRow(accountId: string, keyId: string, patch: Partial<NewUsageRow> = {}): NewUsageRow {
  return {
    request_id: newId('req'),
    created_at: Date.now(),
    account_id: accountId,
    key_id: keyId,
    model: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    provider_id: 'prov_x',
    status: 200,
    prompt_tokens: 10,
    completion_tokens: 5,
    cached_tokens: 0,
    units: 0,
    cost_nano: 4_500,
    latency_ms: 12,
    estimated: 0,
    error_type: null,
    session_id: null,
    ...patch,
  };
}

function byKey<T>(name: keyof T): (a: T, b: T) => number {
  return (a, b) => String(a[name]).localeCompare(String(b[name]));
}

/** PostgreSQL returns BIGINT columns as strings; the rows were written as numbers */
function numbersOf(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) && name !== 'request_id' ? Number(value) : value]));
}

const cases = [...bothDatabases('flush').map((database) => ({ database, thread: false })), { database: sqliteDatabase('flush-thread'), thread: true }];
for (const { database, thread } of cases) {
  describe(`ledger flush on ${database.name}${thread ? ", the flush thread's connection" : ''}`, () => {
    let store: Store;
    let ledgerRepositoryOf = ledgerRepository;
    let threadDatabase: DatabaseSync | undefined;
    before(async () => {
      store = await openStore(database.url);
      if (thread) {
        threadDatabase = openSqliteFile(database.url.slice('sqlite:'.length));
        const connection = sqliteFlushConnection(threadDatabase);
        const statements = await compileFlushStatements(store.db, async () => undefined);
        ledgerRepositoryOf = (db) => ({ ...ledgerRepository(db), flush: (batch: WriteBatch) => writeBatch(connection, statements, rowsOfBatch(batch)) });
      }
    });
    after(async () => {
      threadDatabase?.close();
      await store.close();
      await database.drop();
    });

    async function fixture(): Promise<{ account: AccountRecord; key: ApiKeyRecord }> {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'flush', email: null });
      const secret = newApiKey();
      const key = await apiKeysRepository(store.db).insert({
        id: newId('key'),
        accountId: account.id,
        name: null,
        keyHash: hashApiKey(secret),
        keyHint: keyHint(secret),
        expiresAt: null,
        models: null,
        rpm: null,
        tpm: null,
        maxSpendNano: 1_000_000,
      });
      return { account, key };
    }

    test('journal rows, balance, key spend, usage rows and last use land together; balance = journal sum', async () => {
      const { account, key } = await fixture();
      const ledger = ledgerRepositoryOf(store.db);
      const credit = entry(account.id, 1_000_000);
      const charge1 = entry(account.id, -1_500, { keyId: key.id, requestId: 'r1' });
      const charge2 = entry(account.id, -2_500, { keyId: key.id, requestId: 'r2' });
      const { written } = await ledger.flush({
        entries: [credit, charge1, charge2],
        usage: [usageRow(account.id, key.id), usageRow(account.id, key.id)],
        touches: [
          { keyId: key.id, lastUsedAt: 1_000 },
          { keyId: key.id, lastUsedAt: 3_000 },
          { keyId: key.id, lastUsedAt: 2_000 },
        ],
      });
      assert.deepEqual([...written].sort(), [credit.entryKey, charge1.entryKey, charge2.entryKey].sort());
      const stored = await accountsRepository(store.db).get(account.id);
      assert.equal(stored?.balanceNano, 996_000);
      assert.equal(await ledger.sumByAccount(account.id), 996_000);
      assert.ok(stored!.seq > account.seq, 'the balance change is a change other instances poll');
      const storedKey = await apiKeysRepository(store.db).get(key.id);
      assert.equal(storedKey?.spentNano, 4_000, 'charges with a key add to its spend; credits do not');
      assert.equal(storedKey?.lastUsedAt, 3_000, 'the latest use wins');
      assert.ok(storedKey!.seq > key.seq);
      const journal = await ledger.listByAccount(account.id, 10);
      assert.deepEqual(
        journal.map((r) => [r.kind, Number(r.amount_nano), r.request_id]),
        [
          ['charge', -2_500, 'r2'],
          ['charge', -1_500, 'r1'],
          ['credit', 1_000_000, null],
        ],
        'newest first',
      );
      assert.equal((await usageRepository(store.db).list({ accountId: account.id, limit: 10 })).length, 2);
    });

    test('a batch flushed twice (its first commit acknowledgement lost) adds its usage rows and rollups once', async () => {
      const { account, key } = await fixture();
      const ledger = ledgerRepositoryOf(store.db);
      const charge = entry(account.id, -3_000, { keyId: key.id, requestId: 'retried' });
      const rows = [usageRow(account.id, key.id), usageRow(account.id, key.id)];
      const batch = { entries: [entry(account.id, 1_000_000), charge], usage: rows, touches: [] };
      await ledger.flush(batch);
      const again = await ledger.flush({ ...batch, usage: [...rows, usageRow(account.id, key.id, { prompt_tokens: 7 })] });
      assert.equal(again.written.size, 0, 'journal rows are skipped by entry key');
      const usage = await usageRepository(store.db).list({ accountId: account.id, limit: 10 });
      assert.equal(usage.length, 3, 'the two retried rows once, the new row once');
      const rollup = await store.db
        .selectFrom('usage_rollup_hour')
        .select((eb) => [eb.fn.sum<number>('requests').as('requests'), eb.fn.sum<number>('prompt_tokens').as('prompt')])
        .where('account_id', '=', account.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(rollup.requests), Number(rollup.prompt)], [3, 27], 'rollups count what was inserted, not what was sent');
      assert.equal(await ledger.sumByAccount(account.id), 997_000);
    });

    test('an entry key already written is skipped and never applied twice', async () => {
      const { account, key } = await fixture();
      const ledger = ledgerRepositoryOf(store.db);
      const charge = entry(account.id, -700, { keyId: key.id });
      await ledger.flush({ entries: [entry(account.id, 10_000), charge], usage: [], touches: [] });
      const again = await ledger.flush({ entries: [charge, entry(account.id, -300, { keyId: key.id })], usage: [], touches: [] });
      assert.equal(again.written.has(charge.entryKey), false);
      assert.equal(again.written.size, 1);
      assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 9_000);
      assert.equal((await apiKeysRepository(store.db).get(key.id))?.spentNano, 1_000);
      assert.equal(await ledger.sumByAccount(account.id), 9_000);
    });

    test('a key twice in one batch is written once: the first occurrence', async () => {
      const { account } = await fixture();
      const ledger = ledgerRepositoryOf(store.db);
      const first = entry(account.id, 5_000, { entryKey: `credit:${account.id}:idem` });
      const retry = { ...first, amountNano: 7_000 };
      const { written } = await ledger.flush({ entries: [first, retry], usage: [], touches: [] });
      assert.deepEqual([...written], [first.entryKey]);
      assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 5_000);
      assert.equal(await ledger.sumByAccount(account.id), 5_000);
    });

    test('one transaction: a failing part leaves no journal row, balance or usage row behind', async () => {
      const { account, key } = await fixture();
      const ledger = ledgerRepositoryOf(store.db);
      const good = entry(account.id, 42_000);
      const broken = usageRow(account.id, key.id, { model: null as unknown as string }); // NOT NULL violation
      await assert.rejects(ledger.flush({ entries: [good], usage: [usageRow(account.id, key.id), broken], touches: [] }));
      assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 0);
      assert.equal(await ledger.sumByAccount(account.id), 0);
      assert.deepEqual(await ledger.listByAccount(account.id, 10), []);
      assert.deepEqual(await usageRepository(store.db).list({ accountId: account.id, limit: 10 }), []);
      // the same entry goes through on the retry
      const { written } = await ledger.flush({ entries: [good], usage: [], touches: [] });
      assert.ok(written.has(good.entryKey));
      assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 42_000);
    });

    test('large batches (more rows than one INSERT chunk) are written whole', async () => {
      const { account, key } = await fixture();
      const ledger = ledgerRepositoryOf(store.db);
      const entries = [entry(account.id, 1_000_000), ...Array.from({ length: 999 }, () => entry(account.id, -3, { keyId: key.id }))];
      const usage = Array.from({ length: 900 }, () => usageRow(account.id, key.id));
      const { written } = await ledger.flush({ entries, usage, touches: [] });
      assert.equal(written.size, 1000);
      assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 1_000_000 - 2_997);
      assert.equal((await apiKeysRepository(store.db).get(key.id))?.spentNano, 2_997);
      assert.equal((await usageRepository(store.db).list({ accountId: account.id, limit: 1000 })).length, 900);
    });

    test('every column of every journal and usage row is stored as given, whatever the batch size and however a row was queued', async () => {
      // the flush binds values by position in statements compiled once per row count: a value in
      // the wrong column or row would show here (each value is different from every other); every
      // other usage row is queued encoded, as rows bound for the flush thread are
      const ledger = ledgerRepositoryOf(store.db);
      for (const size of [1, 3, 64, 71]) {
        const { account, key } = await fixture();
        const entries = Array.from({ length: size }, (_, i) =>
          entry(account.id, -(size * 100 + i), { keyId: key.id, requestId: `req_${size}_${i}`, kind: 'charge', note: `note ${size}/${i}`, createdAt: 1_700_000_000_000 + size * 1000 + i }),
        );
        const usage = Array.from({ length: size }, (_, i) => {
          const n = size * 1000 + i;
          return usageRow(account.id, key.id, {
            request_id: `req_${size}_${i}`, created_at: 1_700_000_000_000 + n, model: `model-${n} "quoted" \\ é 🙂`, endpoint: `/v1/e${n}`, provider_id: i % 2 ? null : `prov_${n}`,
            status: 200 + (i % 300), prompt_tokens: n + 1, completion_tokens: n + 2, cached_tokens: n + 3, units: n + 0.5, cost_nano: n + 4,
            latency_ms: n + 5, estimated: i % 2, error_type: i % 3 ? null : `err_${n}`, session_id: i % 4 ? null : `sess_${n}`,
          });
        });
        await ledger.flush({ entries, usage: usage.map((row, i) => (i % 2 === 1 ? encodeUsageRow(row) : row)), touches: [] });

        const stored = await store.db.selectFrom('ledger').selectAll().where('account_id', '=', account.id).execute();
        const expectedLedger = entries.map((e) => ({ entry_key: e.entryKey, account_id: e.accountId, key_id: e.keyId, request_id: e.requestId, kind: e.kind, amount_nano: e.amountNano, note: e.note, created_at: e.createdAt }));
        assert.deepEqual(
          stored.map(({ id: _id, ...row }) => ({ ...row, amount_nano: Number(row.amount_nano), created_at: Number(row.created_at) })).sort(byKey('entry_key')),
          expectedLedger.sort(byKey('entry_key')),
        );
        const storedUsage = await store.db.selectFrom('usage_log').selectAll().where('account_id', '=', account.id).execute();
        assert.deepEqual(
          storedUsage.map(({ id: _id, ...row }) => numbersOf(row)).sort(byKey('request_id')),
          usage.sort(byKey('request_id')),
        );
      }
    });

    test('usage list: filters by account, key and model; newest first; paging with before', async () => {
      const a = await fixture();
      const b = await fixture();
      const rows: NewUsageRow[] = [];
      for (let i = 0; i < 12; i++) {
        const owner = i % 3 === 0 ? b : a;
        rows.push(usageRow(owner.account.id, owner.key.id, { model: i % 2 === 0 ? 'gpt-4o-mini' : 'text-embedding-3-small', request_id: `req_${i}` }));
      }
      await ledgerRepositoryOf(store.db).flush({ entries: [], usage: rows, touches: [] });
      const usage = usageRepository(store.db);

      const ofA = await usage.list({ accountId: a.account.id, limit: 100 });
      assert.equal(ofA.length, 8);
      assert.ok(ofA.every((r) => r.account_id === a.account.id));
      const ids = ofA.map((r) => Number(r.id));
      assert.deepEqual(ids, [...ids].sort((x, y) => y - x), 'newest first');
      assert.deepEqual(
        ofA.map((r) => r.request_id),
        ['req_11', 'req_10', 'req_8', 'req_7', 'req_5', 'req_4', 'req_2', 'req_1'],
      );

      assert.equal((await usage.list({ keyId: b.key.id, limit: 100 })).length, 4);
      const aEmbeddings = await usage.list({ accountId: a.account.id, model: 'text-embedding-3-small', limit: 100 });
      assert.deepEqual(aEmbeddings.map((r) => r.request_id), ['req_11', 'req_7', 'req_5', 'req_1']);

      const pages: string[] = [];
      let beforeId: number | undefined;
      for (;;) {
        const page = await usage.list({ accountId: a.account.id, limit: 3, ...(beforeId !== undefined && { beforeId }) });
        if (page.length === 0) break;
        assert.ok(page.length <= 3);
        pages.push(...page.map((r) => r.request_id));
        beforeId = Number(page.at(-1)!.id);
      }
      assert.deepEqual(pages, ofA.map((r) => r.request_id), 'the pages cover every row once, in order');
    });
  });
}
