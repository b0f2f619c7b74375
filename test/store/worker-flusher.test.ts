// The SQLite write-behind runs in a worker thread (src/store/flusher.ts): it writes the same rows
// as the in-place flush, a worker that dies fails its flush (the state sync retries) and the next
// flush gets a new worker, and a closed flusher refuses instead of hanging.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { createFlusher, type Flusher } from '../../src/store/flusher.ts';
import { jsonLines } from '../../src/store/json-lines.ts';
import { accountsRepository } from '../../src/store/repositories/accounts.ts';
import { encodeUsageRow, ledgerRepository, type LedgerEntry } from '../../src/store/repositories/ledger.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { sqliteDatabase } from '../helpers/databases.ts';

function credit(accountId: string, amountNano: number): LedgerEntry {
  return { entryKey: newId('e'), accountId, keyId: null, requestId: null, kind: 'credit', amountNano, note: null, createdAt: Date.now() };
}

describe('worker flusher on an SQLite file', () => {
  const database = sqliteDatabase('worker-flush');
  let store: Store;
  let flusher: Flusher;
  before(async () => {
    store = await openStore(database.url);
    flusher = createFlusher(store);
  });
  after(async () => {
    await flusher.close();
    await store.close();
    await database.drop();
  });

  test('writes through its own connection; the main connection reads the result', async () => {
    const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'worker', email: null });
    const first = credit(account.id, 7_000);
    const { written } = await flusher.flush({ entries: [first], usage: [], touches: [] });
    assert.deepEqual([...written], [first.entryKey]);
    assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 7_000);
    const again = await flusher.flush({ entries: [first], usage: [], touches: [] });
    assert.equal(again.written.size, 0, 'an entry key is applied once, also across connections');
  });

  test('usage rows cross to the thread as encoded text and land column for column', async () => {
    assert.equal(flusher.takesEncodedRows, true, 'the state sync queues usage rows encoded for this flusher');
    const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'encoded', email: null });
    const row: NewUsageRow = {
      request_id: newId('req'), created_at: 1_700_000_000_123, account_id: account.id, key_id: 'key_x', model: 'model "q" \\ é 🙂', endpoint: '/v1/chat/completions',
      provider_id: null, status: 499, prompt_tokens: 11, completion_tokens: 22, cached_tokens: 3, units: 1.5, cost_nano: 4_567, latency_ms: 89, estimated: 1,
      error_type: 'client_closed', session_id: 'sess_1',
    };
    await flusher.flush({ entries: [], usage: [encodeUsageRow(row)], touches: [] });
    const stored = await store.db.selectFrom('usage_log').selectAll().where('account_id', '=', account.id).execute();
    assert.deepEqual(stored.map(({ id: _id, ...rest }) => rest), [row]);
  });

  test('journal entries cross to the thread as the text the state sync encoded, and land field for field', async () => {
    const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'encoded entries', email: null });
    const charge: LedgerEntry = { entryKey: newId('e'), accountId: account.id, keyId: 'key_q', requestId: 'req_q', kind: 'charge', amountNano: -1_234, note: 'note "q" \\ é 🙂', createdAt: 1_700_000_000_456 };
    const top = credit(account.id, 10_000);
    const encodedEntries = jsonLines([top, charge].map((entry) => JSON.stringify(entry)));
    // changed after it was encoded: the database gets what the settlement log holds, as queued
    charge.note = 'changed later';
    const { written } = await flusher.flush({ entries: [top, charge], encodedEntries, usage: [], touches: [] });
    assert.deepEqual([...written], [top.entryKey, charge.entryKey]);
    const rows = await ledgerRepository(store.db).listByAccount(account.id, 10);
    const stored = rows.find((row) => row.entry_key === charge.entryKey)!;
    assert.deepEqual(
      [stored.account_id, stored.key_id, stored.request_id, stored.kind, Number(stored.amount_nano), stored.note, Number(stored.created_at)],
      [account.id, 'key_q', 'req_q', 'charge', -1_234, 'note "q" \\ é 🙂', 1_700_000_000_456],
    );
    assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 8_766);
    // a batch without (or with mismatched) encodings is encoded whole: never a wrong pairing
    const next = credit(account.id, 4);
    assert.deepEqual([...(await flusher.flush({ entries: [next], encodedEntries: jsonLines([]), usage: [], touches: [] })).written], [next.entryKey]);
    assert.equal(await ledgerRepository(store.db).sumByAccount(account.id), 8_770);
  });

  test('on Linux the flush thread runs at a lower priority than the event loop', { skip: process.platform !== 'linux' }, async () => {
    const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'nice', email: null });
    await flusher.flush({ entries: [credit(account.id, 1)], usage: [], touches: [] });
    // field 19 of /proc/<pid>/task/<tid>/stat is the nice value; the command may contain spaces, so count after ')'
    const niceOf = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const threads = readdirSync('/proc/self/task').map((tid) => ({ tid, name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() }));
    const flushThreads = threads.filter((t) => t.name === 'WorkerThread');
    assert.ok(flushThreads.length >= 1, `a worker thread exists (${threads.map((t) => t.name).join(', ')})`);
    assert.ok(flushThreads.some((t) => niceOf(t.tid) === 10), 'the flush worker is niced');
    assert.equal(niceOf(String(process.pid)), 0, 'the event loop keeps the normal priority');
  });

  test('a worker that dies fails its flush, and the next flush starts a new one', async () => {
    const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'crash', email: null });
    await flusher.flush({ entries: [credit(account.id, 1)], usage: [], touches: [] });
    const worker = (flusher as unknown as { worker: Worker }).worker;
    assert.ok(worker, 'a worker is running');
    const inFlight = flusher.flush({ entries: [credit(account.id, 10)], usage: [], touches: [] });
    await worker.terminate();
    // the batch may or may not have committed before the thread died; either way the caller hears of it or gets its result
    const outcome = await inFlight.then(
      () => 'written',
      (error: Error) => error.message,
    );
    assert.match(outcome, /written|flush worker exited/);
    const next = credit(account.id, 100);
    const { written } = await flusher.flush({ entries: [next], usage: [], touches: [] });
    assert.deepEqual([...written], [next.entryKey]);
    assert.equal(await ledgerRepository(store.db).sumByAccount(account.id), (await accountsRepository(store.db).get(account.id))?.balanceNano);
  });

  test('after close a flush is refused at once', async () => {
    const own = createFlusher(store);
    await own.close();
    await assert.rejects(own.flush({ entries: [], usage: [], touches: [] }), /closed/);
  });
});
