import { Worker } from 'node:worker_threads';
import type { Store } from './database.ts';
import type { FlushReply, FlushRequest } from './flush-worker.ts';
import { ledgerRepository, type FlushResult, type WriteBatch } from './repositories/ledger.ts';

/** Writes one write-behind batch in one transaction (see ledgerRepository.flush). */
export interface Flusher {
  flush(batch: WriteBatch): Promise<FlushResult>;
  close(): Promise<void>;
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

class WorkerFlusher implements Flusher {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(result: FlushResult): void; reject(error: Error): void }>();
  private nextId = 1;

  constructor(path: string) {
    this.worker = new Worker(new URL('./flush-worker.ts', import.meta.url), { workerData: { path } });
    this.worker.unref();
    this.worker.on('message', (reply: FlushReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve({ written: new Set(reply.written) });
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) => this.failAll(new Error(`flush worker exited (${code})`)));
  }

  flush(batch: WriteBatch): Promise<FlushResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, batch } satisfies FlushRequest);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
