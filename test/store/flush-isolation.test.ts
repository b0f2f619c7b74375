// A row the database refuses cannot hold back its batch (src/store/flush-isolation.ts): the
// flush finds it by halves and writes every other row; a usage row goes to dead_letters with the
// database's error, a journal entry is written with a sanitised note or kept to be retried, and a
// database that is unavailable sets nothing aside. On SQLite the batches go through the flush
// thread (a file), on PostgreSQL in place: the flushers the gateway uses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { flushIsolating, isRowFault } from '../../src/store/flush-isolation.ts';
import { createFlusher, type Flusher } from '../../src/store/flusher.ts';
import { accountsRepository } from '../../src/store/repositories/accounts.ts';
import { deadLettersRepository } from '../../src/store/repositories/dead-letters.ts';
import { encodeUsageRow, ledgerRepository, type LedgerEntry, type LedgerRepository, type WriteBatch } from '../../src/store/repositories/ledger.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { bothDatabases } from '../helpers/databases.ts';
import { installRefusals, REFUSED_MODEL } from '../helpers/refusals.ts';

function entry(accountId: string, amountNano: number, patch: Partial<LedgerEntry> = {}): LedgerEntry {
  return { entryKey: newId('e'), accountId, keyId: null, requestId: null, kind: amountNano >= 0 ? 'credit' : 'charge', amountNano, note: null, createdAt: Date.now(), ...patch };
}

function usageRow(accountId: string, patch: Partial<NewUsageRow> = {}): NewUsageRow {
  return {
    request_id: newId('req'), created_at: Date.now(), account_id: accountId, key_id: 'key_x', model: 'gpt-4o-mini', endpoint: '/v1/chat/completions', provider_id: null,
    status: 200, prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0, units: 0, cost_nano: 4_500, latency_ms: 12, estimated: 0, error_type: null, session_id: null,
    ...patch,
  };
}

for (const database of bothDatabases('isolate')) {
  describe(`flush isolation on ${database.name}`, () => {
    let store: Store;
    let flusher: Flusher;
    before(async () => {
      store = await openStore(database.url);
      await installRefusals(store.db, database.name);
      flusher = createFlusher(store);
    });
    after(async () => {
      await flusher.close();
      await store.close();
      await database.drop();
    });

    const queued = (row: NewUsageRow) => (flusher.takesEncodedRows ? encodeUsageRow(row) : row);
    const usageOf = (accountId: string) => store.db.selectFrom('usage_log').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    const lettersOf = (requestId: string) => store.db.selectFrom('dead_letters').selectAll().where('row_key', '=', requestId).execute();

    test('a usage row the database refuses goes to dead_letters with its error; every other row of the batch is written', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'isolate', email: null });
      const entries = [entry(account.id, 1_000_000), ...Array.from({ length: 20 }, () => entry(account.id, -1_000))];
      const good = Array.from({ length: 40 }, () => usageRow(account.id));
      const refused = usageRow(account.id, { model: REFUSED_MODEL });
      const usage = [...good.slice(0, 17), refused, ...good.slice(17)];
      const outcome = await flusher.flush({ entries, usage: usage.map(queued), touches: [] });

      assert.equal(outcome.written.size, entries.length, 'every journal entry written');
      assert.equal(await ledgerRepository(store.db).sumByAccount(account.id), 980_000);
      assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 980_000, 'balance = journal sum');
      assert.deepEqual((await usageOf(account.id)).map((r) => r.request_id).sort(), good.map((r) => r.request_id).sort(), 'every good usage row, and only those');
      assert.deepEqual(outcome.deadLettered.map((d) => d.rowKey), [refused.request_id]);
      const [letter, ...more] = await lettersOf(refused.request_id);
      assert.equal(more.length, 0);
      assert.equal(letter?.table_name, 'usage_log');
      assert.match(letter!.error, /constraint/i);
      assert.equal(JSON.parse(letter!.row_json).model, REFUSED_MODEL, 'the row is kept, as JSON');
      assert.deepEqual(outcome.sanitised, []);
      assert.deepEqual(outcome.stuck, []);
    });

    test('a batch retried whole after a later failure sets its refused row aside once', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'twice', email: null });
      const refused = usageRow(account.id, { model: REFUSED_MODEL });
      const batch = { entries: [entry(account.id, 1_000)], usage: [queued(usageRow(account.id)), queued(refused)], touches: [] };
      const first = await flusher.flush(batch);
      const again = await flusher.flush(batch);
      assert.deepEqual([first.deadLettered.length, again.deadLettered.length], [1, 0], 'counted and logged once');
      assert.equal((await lettersOf(refused.request_id)).length, 1);
      assert.equal((await usageOf(account.id)).length, 1);
      assert.equal(await ledgerRepository(store.db).sumByAccount(account.id), 1_000);
    });

    test('unfitted values that reach the flush (NaN, an array, NUL) are isolated the same way', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'raw', email: null });
      const good = usageRow(account.id);
      const nan = usageRow(account.id, { prompt_tokens: Number.NaN });
      const array = usageRow(account.id, { model: ['gpt-4o'] as unknown as string });
      const outcome = await flusher.flush({ entries: [], usage: [nan, good, array].map(queued), touches: [] });
      const written = (await usageOf(account.id)).map((r) => r.request_id);
      assert.ok(written.includes(good.request_id) && !written.includes(nan.request_id));
      // NaN travels as null (NOT NULL) or 'NaN' (not an integer); an array cannot be bound on
      // SQLite (PostgreSQL's driver sends it as an array literal, which a text column takes)
      assert.ok(outcome.deadLettered.some((d) => d.rowKey === nan.request_id));
      assert.equal((await lettersOf(nan.request_id)).length, 1);
      assert.equal(written.includes(array.request_id), (await lettersOf(array.request_id)).length === 0, 'the array row is written or dead-lettered, never lost');
    });

    test('a journal entry the database refuses is written with a sanitised note, never dropped', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'notes', email: null });
      const plain = entry(account.id, 5_000, { note: 'plain' });
      const fancy = entry(account.id, 7_000, { note: 'café ☕ credit' });
      const letters = await deadLettersRepository(store.db).count();
      const outcome = await flusher.flush({ entries: [plain, fancy], usage: [], touches: [] });
      assert.deepEqual([...outcome.written].sort(), [plain.entryKey, fancy.entryKey].sort());
      assert.deepEqual(outcome.sanitised.map((s) => s.entryKey), [fancy.entryKey]);
      const journal = await ledgerRepository(store.db).listByAccount(account.id, 10);
      assert.deepEqual(journal.map((r) => r.note).sort(), ['plain', 'sanitised: caf? ? credit']);
      assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 12_000);
      assert.equal(await ledgerRepository(store.db).sumByAccount(account.id), 12_000);
      assert.equal(await deadLettersRepository(store.db).count(), letters, 'journal entries never go to dead_letters');
    });

    test('a journal entry refused even sanitised is handed back to be kept and retried; the rest is written', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'orphan', email: null });
      const orphan = entry('acct_that_does_not_exist', 3_000); // the journal's foreign key refuses it
      const fine = entry(account.id, 9_000);
      const outcome = await flusher.flush({ entries: [orphan, fine], usage: [queued(usageRow(account.id))], touches: [] });
      assert.deepEqual([...outcome.written], [fine.entryKey]);
      assert.deepEqual(outcome.stuck.map((e) => e.entryKey), [orphan.entryKey]);
      assert.equal((await usageOf(account.id)).length, 1);
      assert.equal(await ledgerRepository(store.db).sumByAccount(account.id), 9_000);
    });
  });
}

describe('an unavailable database sets nothing aside', () => {
  const unavailable = [
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    Object.assign(new Error('Connection terminated unexpectedly'), {}),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 }),
    Object.assign(new Error('disk I/O error'), { code: 'ERR_SQLITE_ERROR', errcode: 10 }),
    Object.assign(new Error('deadlock detected'), { code: '40P01' }),
    new TypeError("Cannot read properties of undefined (reading 'x')"),
  ];
  const rowFaults = [
    Object.assign(new Error('Provided value cannot be bound to SQLite parameter 56.'), { code: 'ERR_INVALID_ARG_TYPE' }),
    Object.assign(new Error('NOT NULL constraint failed: usage_log.prompt_tokens'), { code: 'ERR_SQLITE_ERROR', errcode: 1299 }),
    Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }),
    Object.assign(new Error('value "3000000000" is out of range for type integer'), { code: '22003' }),
    Object.assign(new Error('violates check constraint'), { code: '23514' }),
  ];

  test('errors are told apart: the row\'s fault, or the database\'s (and our own bugs count as the latter)', () => {
    for (const error of unavailable) assert.equal(isRowFault(error), false, error.message);
    for (const error of rowFaults) assert.equal(isRowFault(error), true, error.message);
  });

  test('a flush that fails for want of the database throws for the whole batch and dead-letters nothing', async () => {
    for (const error of unavailable) {
      let attempts = 0;
      const ledger = { flush: async () => { attempts++; throw error; } } as unknown as LedgerRepository;
      const letters: unknown[] = [];
      const deadLetters = { insert: async (letter: unknown) => letters.push(letter) > 0, count: async () => letters.length };
      const batch: WriteBatch = { entries: [entry('acct', 1), entry('acct', 2)], usage: [usageRow('acct'), usageRow('acct')], touches: [] };
      await assert.rejects(flushIsolating(ledger, deadLetters, batch), error);
      assert.equal(attempts, 1, 'not split: the batch is retried whole, later');
      assert.deepEqual(letters, []);
    }
  });
});
