// Worker thread that writes the write-behind batches of an embedded SQLite database on its own
// connection. node:sqlite is synchronous: run on the event loop, a flush of a few hundred rows
// stalls every request for milliseconds; here it runs beside it (WAL lets the main connection
// keep reading). The SQL is the same repository code as on the main thread.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Kysely } from 'kysely';
import { flushIsolating, type FlushOutcome } from './flush-isolation.ts';
import { deadLettersRepository } from './repositories/dead-letters.ts';
import { ledgerRepository, type WriteBatch } from './repositories/ledger.ts';
import type { Database } from './schema.ts';
import { nodeSqliteDialect } from './sqlite-dialect.ts';

export interface FlushRequest {
  id: number;
  batch: WriteBatch;
}

/** the outcome with its written keys as an array; an error means "retry the whole batch" (see flushIsolating) */
export type FlushReply = { id: number; outcome: Omit<FlushOutcome, 'written'> & { written: string[] } } | { id: number; error: string };

const { path } = workerData as { path: string };

/**
 * On Linux a thread has its own nice value: this one yields to the event loop when both want
 * the same core (a flush of a few hundred rows takes milliseconds; requests should not wait
 * behind it). Best effort: elsewhere, or without /proc, the worker keeps the normal priority.
 */
const FLUSH_THREAD_NICE = 10;
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, FLUSH_THREAD_NICE);
} catch {
  // not Linux, or not allowed: normal priority
}
const db = new Kysely<Database>({ dialect: nodeSqliteDialect(path) });
const ledger = ledgerRepository(db);
const deadLetters = deadLettersRepository(db);

parentPort!.on('message', (request: FlushRequest) => {
  flushIsolating(ledger, deadLetters, request.batch).then(
    (outcome) => parentPort!.postMessage({ id: request.id, outcome: { ...outcome, written: [...outcome.written] } } satisfies FlushReply),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies FlushReply),
  );
});
