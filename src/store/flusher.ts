import { Worker } from 'node:worker_threads';
import type { Store } from './database.ts';
import type { FlushReply, FlushRequest } from './flush-worker.ts';
import { ledgerRepository, type FlushResult, type WriteBatch } from './repositories/ledger.ts';

/** Writes one write-behind batch in one transaction (see ledgerRepository.flush). */
export interface Flusher {
  flush(batch: WriteBatch): Promise<FlushResult>;
  close(): Promise<void>;
  /** usage rows should be queued encoded (encodeUsageRow): this flusher sends them to another thread */
  readonly takesEncodedUsage?: boolean;
}

/**
 * An embedded SQLite file is written from a worker thread (node:sqlite would block the event
 * loop); PostgreSQL is asynchronous already, and an in-memory SQLite database cannot be opened
 * twice, so both are written in place.
 */
export function createFlusher(store: Store): Flusher {
  const path = store.sqlitePath;
  if (store.dialect === 'sqlite' && path && path !== ':memory:') return new WorkerFlusher(path);
  const repository = ledgerRepository(store.db);
  return { flush: (batch) => repository.flush(batch), close: async () => undefined };
}

/**
 * A worker that dies (out of memory, a native crash) fails the flushes in flight — the state sync
 * keeps their rows and retries — and the next flush starts a new one, so writes never wait on a
 * dead thread. Journal rows are idempotent by entry key, so a retried batch is applied once.
 */
class WorkerFlusher implements Flusher {
  readonly takesEncodedUsage = true;
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve(result: FlushResult): void; reject(error: Error): void }>();
  private nextId = 1;
  private closed = false;
  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  flush(batch: WriteBatch): Promise<FlushResult> {
    if (this.closed) return Promise.reject(new Error('the flusher is closed'));
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, batch } satisfies FlushRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    this.failAll(new Error('the flusher is closed'));
  }

  private start(): Worker {
    const worker = new Worker(new URL('./flush-worker.ts', import.meta.url), { workerData: { path: this.path } });
    worker.unref();
    worker.on('message', (reply: FlushReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve({ written: new Set(reply.written) });
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error(`flush worker exited (${code})`));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
