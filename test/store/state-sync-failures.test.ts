// The state sync while its flush fails (src/store/state-sync.ts): readers refresh from what is
// committed and are not failed by it, callers that promise durability are, the writes stay queued
// in order and are retried after a backoff, and the lag and counts say so.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { inPlaceFlusher, type Flusher } from '../../src/store/flusher.ts';
import { accountsRepository } from '../../src/store/repositories/accounts.ts';
import type { LedgerEntry, WriteBatch } from '../../src/store/repositories/ledger.ts';
import { StateSync, type SyncListener } from '../../src/store/state-sync.ts';

let store: Store;
before(async () => {
  store = await openStore('sqlite::memory:');
});
after(() => store.close());

/** A flusher that fails as an unavailable database does while `down` is set, and writes otherwise. */
function switchableFlusher(): Flusher & { down: boolean; batches: WriteBatch[] } {
  const real = inPlaceFlusher(store.db);
  const flusher = {
    down: false,
    batches: [] as WriteBatch[],
    flush: async (batch: WriteBatch) => {
      flusher.batches.push(batch);
      if (flusher.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      return real.flush(batch);
    },
    close: async () => undefined,
  };
  return flusher;
}

test('a failing flush: refresh resolves, now rejects, writes kept and retried after a backoff, lag reported', async () => {
  const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'down', email: null });
  const reconciled: string[] = [];
  const listener: SyncListener = {
    provider: () => undefined,
    account: () => undefined,
    apiKey: () => undefined,
    modelOverride: () => undefined,
    flushed: (entries, written) => reconciled.push(...entries.filter((e) => written.has(e.entryKey)).map((e) => e.entryKey)),
  };
  const flusher = switchableFlusher();
  const sync = new StateSync(store.db, listener, pino({ level: 'silent' }), 60_000, flusher);
  await sync.start();
  const credit = (amountNano: number): LedgerEntry => ({ entryKey: newId('e'), accountId: account.id, keyId: null, requestId: null, kind: 'credit', amountNano, note: null, createdAt: Date.now() });

  flusher.down = true;
  const first = credit(100);
  sync.enqueue(first);
  await assert.rejects(sync.now(), /ECONNREFUSED/, 'a caller that promised durability is told');
  const attempts = flusher.batches.length;
  await sync.refresh(); // a reader: resolves, and waits for the backoff instead of hammering the database
  assert.equal(flusher.batches.length, attempts, 'no new attempt while the retry waits (backoff)');
  const second = credit(200);
  sync.enqueue(second);
  const health = sync.health();
  assert.equal(health.pending, 2);
  assert.equal(health.failedFlushes, 1);
  assert.ok(health.lagMs >= 0 && health.lagMs < 60_000);
  assert.equal(health.deadLetters, 0);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(sync.health().lagMs > 0, 'the oldest write is aging');

  flusher.down = false;
  await sync.now();
  assert.deepEqual(reconciled, [first.entryKey, second.entryKey], 'kept in order, written once');
  assert.equal((await accountsRepository(store.db).get(account.id))?.balanceNano, 300);
  assert.deepEqual({ ...sync.health(), failedFlushes: 0 }, { lagMs: 0, pending: 0, deadLetters: 0, stuckEntries: 0, failedFlushes: 0 });
  await sync.stop();
});
