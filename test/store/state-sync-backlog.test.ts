// Backpressure from the write-behind (StateSync.backlog, admitBeforeWork): once the oldest row not
// yet written is older than the limit, or as many rows as the row limit wait, while the database
// takes writes, admission waits for the flush; it does not while the database is down (the queue
// rides that out), nor when the queue is young and short.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { admitBeforeWork } from '../../src/http/admission.ts';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { inPlaceFlusher, type Flusher } from '../../src/store/flusher.ts';
import { accountsRepository } from '../../src/store/repositories/accounts.ts';
import type { LedgerEntry, WriteBatch } from '../../src/store/repositories/ledger.ts';
import { BACKLOG_MAX_WAIT_MS, StateSync, type SyncListener } from '../../src/store/state-sync.ts';

let store: Store;
before(async () => {
  store = await openStore('sqlite::memory:');
});
after(() => store.close());

const listener: SyncListener = { provider: () => undefined, account: () => undefined, apiKey: () => undefined, modelOverride: () => undefined, flushed: () => undefined };

/** A flusher that writes once `release` is called (a flush thread starved of CPU), then at once; fails while `down`. */
function gatedFlusher(): Flusher & { down: boolean; release(): void } {
  const real = inPlaceFlusher(store.db);
  let open: (() => void) | undefined;
  let released = false;
  const flusher = {
    down: false,
    release: () => {
      released = true;
      open?.();
    },
    flush: async (batch: WriteBatch) => {
      if (flusher.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      if (!released) await new Promise<void>((resolve) => (open = resolve));
      return real.flush(batch);
    },
    close: async () => undefined,
  };
  return flusher;
}

async function syncWithEntry(flusher: Flusher): Promise<StateSync> {
  const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'backlog', email: null });
  const sync = new StateSync(store.db, listener, pino({ level: 'silent' }), 60_000, flusher);
  await sync.start();
  const entry: LedgerEntry = { entryKey: newId('e'), accountId: account.id, keyId: null, requestId: null, kind: 'credit', amountNano: 100, note: null, createdAt: Date.now() };
  sync.enqueue(entry);
  return sync;
}

test('a queue older than the limit: a promise that settles when the flush under way ends; a young or empty queue: none', async () => {
  const flusher = gatedFlusher();
  const sync = await syncWithEntry(flusher);
  assert.equal(sync.backlog(), undefined, 'the row is younger than the 2-s limit');
  sync.backlogLimitMs = 0;
  const flushing = sync.now();
  const waiting = sync.backlog();
  assert.ok(waiting instanceof Promise, 'the row being flushed is over the limit');
  assert.equal(sync.backlog(), waiting, 'every admission waits on the same flush');
  let drained = false;
  void waiting.then(() => (drained = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(drained, false, 'not before the flush ends');
  flusher.release();
  await flushing;
  await waiting;
  assert.equal(sync.backlog(), undefined, 'nothing waiting any more');
  await sync.stop();
});

test('a queue of as many rows as the row limit is a backlog while still young', async () => {
  const flusher = gatedFlusher();
  const sync = await syncWithEntry(flusher);
  const accountId = (await accountsRepository(store.db).insert({ id: newId('acct'), name: 'rows', email: null })).id;
  const credit = (): LedgerEntry => ({ entryKey: newId('e'), accountId, keyId: null, requestId: null, kind: 'credit', amountNano: 1, note: null, createdAt: Date.now() });
  sync.backlogLimitRows = 3;
  sync.enqueue(credit());
  assert.equal(sync.backlog(), undefined, 'two rows, young: under both limits');
  const flushing = sync.now();
  sync.enqueue(credit());
  const waiting = sync.backlog();
  assert.ok(waiting instanceof Promise, 'two rows in the flush under way and one queued reach the limit');
  flusher.release();
  await flushing;
  await waiting;
  await sync.stop();
});

test('a flush that hangs without failing holds admission for a second at most, not for good', async () => {
  const flusher = gatedFlusher();
  const sync = await syncWithEntry(flusher);
  sync.backlogLimitMs = 0;
  const flushing = sync.now();
  let flushed = false;
  void flushing.then(() => (flushed = true));
  const started = performance.now();
  await sync.backlog();
  assert.equal(flushed, false, 'the flush still hangs');
  assert.ok(performance.now() - started >= BACKLOG_MAX_WAIT_MS - 50, 'the wait lasted its bound');
  flusher.release();
  await flushing;
  await sync.stop();
});

test('while the database is unavailable the queue is not a backlog', async () => {
  const flusher = gatedFlusher();
  const sync = await syncWithEntry(flusher);
  sync.backlogLimitMs = 0;
  flusher.down = true;
  await assert.rejects(sync.now(), /ECONNREFUSED/);
  assert.equal(sync.health().pending, 1);
  assert.equal(sync.backlog(), undefined);
  await sync.stop().catch(() => undefined);
});

test('admission holds a paid request until the flush ends, then admits it', async () => {
  const flusher = gatedFlusher();
  const sync = await syncWithEntry(flusher);
  sync.backlogLimitMs = 0;
  const admitted: string[] = [];
  const admit = admitBeforeWork({
    sync,
    limiter: { admitRequest: () => undefined },
    ledger: { requireHeadroom: () => undefined },
  });
  const request = { method: 'POST', principal: { accountId: 'acct', key: {} }, raw: { complete: true } } as unknown as FastifyRequest;
  const flushing = sync.now();
  admit(request, {} as FastifyReply, (error) => admitted.push(error ? error.message : 'admitted'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(admitted, [], 'held while the flush runs');
  flusher.release();
  await flushing;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(admitted, ['admitted']);
  await sync.stop();
});
