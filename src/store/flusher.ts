import { getCompileCacheDir } from 'node:module';
import { dirname } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startSmallWorker } from '../core/small-worker.ts';
import { workerModule } from '../core/worker-module.ts';
import type { Kysely } from 'kysely';
import type { Store } from './database.ts';
import { flushIsolating, type FlushOutcome } from './flush-isolation.ts';
import type { FlushStatements } from './flush-sql.ts';
import { compileFlushStatements } from './flush-statements.ts';
import type { FlushReply, FlushRequest, FlushWorkerData } from './flush-worker.ts';
import type { JsonLines } from './json-lines.ts';
import { entryLines, usageLines, type WriteBatch } from './ledger-rows.ts';
import { deadLettersRepository } from './repositories/dead-letters.ts';
import { ledgerRepository } from './repositories/ledger.ts';
import type { Database } from './schema.ts';

/**
 * Writes one write-behind batch: in one transaction, or, when rows of it are refused, around
 * them (flushIsolating). Rejects when the database is unavailable: the caller retries the batch.
 */
export interface Flusher {
  flush(batch: WriteBatch): Promise<FlushOutcome>;
  close(): Promise<void>;
  /**
   * journal entries and usage rows should be queued encoded (WriteBatch.encodedEntries,
   * encodeUsageRow): this flusher sends them to another thread
   */
  readonly takesEncodedRows?: boolean;
}

/**
 * An embedded SQLite file is written from a worker thread (node:sqlite would block the event
 * loop); PostgreSQL is asynchronous already, and an in-memory SQLite database cannot be opened
 * twice, so both are written in place.
 */
export function createFlusher(store: Store): Flusher {
  const path = store.sqlitePath;
  if (store.dialect === 'sqlite' && path && path !== ':memory:') return new WorkerFlusher(path, store.db);
  return inPlaceFlusher(store.db);
}

/** A flusher on this connection, on this thread. */
export function inPlaceFlusher(db: Kysely<Database>): Flusher {
  const ledger = ledgerRepository(db);
  const deadLetters = deadLettersRepository(db);
  return { flush: (batch) => flushIsolating(ledger, deadLetters, batch), close: async () => undefined };
}

/**
 * The flush thread allocates little (a batch of rows every cycle), yet V8 sizes an isolate's
 * young generation for a busy one: up to 32 MB here after a few thousand requests. 4 MB holds
 * it to ~20 MB of heap (measured: 31 → 19 MB at start, 32 → 24 MB after 4,000 requests), where
 * node's own --max-semi-space-size does not override it (startSmallWorker).
 */
const FLUSH_WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/**
 * The worker's environment: the main thread's compile cache named in it (src/start.mjs turns the
 * cache on; a worker does not inherit it). Its .ts files then load from the cache, and the type
 * stripper — ~12 MB of the thread's memory, its WebAssembly heap — is never loaded in it; only the
 * first start after a change to one of them strips (and fills the cache).
 */
function workerEnv(): NodeJS.ProcessEnv | undefined {
  const dir = getCompileCacheDir();
  // the cache's own directory is <base>/<node version and flags>: the worker is given the base
  return dir ? { ...process.env, NODE_COMPILE_CACHE: dirname(dir) } : undefined;
}

/**
 * The lines' bytes in an ArrayBuffer of their own (a Buffer may be a view of a larger one, or of
 * node's shared pool), which can be transferred instead of cloned.
 */
function ownCopy(lines: JsonLines): JsonLines {
  return { bytes: new Uint8Array(lines.bytes), count: lines.count };
}

/**
 * A worker that dies (out of memory, a native crash) fails the flushes in flight — the state sync
 * keeps their rows and retries — and the next flush starts a new one, so writes never wait on a
 * dead thread. Journal rows are idempotent by entry key, so a retried batch is applied once.
 */
class WorkerFlusher implements Flusher {
  readonly takesEncodedRows = true;
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve(result: FlushOutcome): void; reject(error: Error): void }>();
  private nextId = 1;
  private closed = false;
  private readonly path: string;
  private readonly db: Kysely<Database>;
  private statements: Promise<FlushStatements> | undefined;

  constructor(path: string, db: Kysely<Database>) {
    this.path = path;
    this.db = db;
  }

  async flush(batch: WriteBatch): Promise<FlushOutcome> {
    if (this.closed) throw new Error('the flusher is closed');
    // the SQL is compiled here, in the main connection's dialect: the thread runs it without a query builder
    this.statements ??= compileFlushStatements(this.db).catch((error: unknown) => {
      this.statements = undefined;
      throw error;
    });
    const statements = await this.statements;
    if (this.closed) throw new Error('the flusher is closed');
    const worker = this.worker ?? this.start(statements);
    const id = this.nextId++;
    // the rows cross as two texts in bytes (json-lines.ts): a structured clone of a few hundred
    // objects, or strings, costs both threads several times what a copy and a parse there do
    const { encodedEntries, usage } = batch;
    const entries = encodedEntries?.count === batch.entries.length ? encodedEntries : entryLines(batch.entries);
    const request: FlushRequest = { id, entries: ownCopy(entries), usage: ownCopy(usageLines(usage)), touches: batch.touches };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // the copies are handed over; the batch keeps its own bytes, to be retried if the flush fails
      worker.postMessage(request, [request.entries.bytes.buffer as ArrayBuffer, request.usage.bytes.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    this.failAll(new Error('the flusher is closed'));
  }

  private start(statements: FlushStatements): Worker {
    const workerData: FlushWorkerData = { path: this.path, statements };
    const env = workerEnv();
    const worker = startSmallWorker(workerModule('flush-worker', import.meta.url), { workerData, resourceLimits: FLUSH_WORKER_LIMITS, ...(env && { env }) });
    worker.unref();
    worker.on('message', (reply: FlushReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve({ ...reply.outcome, written: new Set(reply.outcome.written) });
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
