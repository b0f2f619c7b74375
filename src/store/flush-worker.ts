// Worker thread that writes the write-behind batches of an embedded SQLite database on its own
// connection. node:sqlite is synchronous: run on the event loop, a flush of a few hundred rows
// stalls every request for milliseconds; here it runs beside it (WAL lets the main connection
// keep reading). The flush is the same code as on the main thread (flush-batch.ts), over
// statements the main thread compiled (flush-statements.ts): this thread loads no query builder
// (kysely's 257 modules cost it 13–22 MB) — keep it so: every import here must stay free of one.
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from '../core/thread-priority.ts';
import { insertDeadLetter, rowsOfBatch, writeBatch } from './flush-batch.ts';
import { flushIsolatingFrom, type FlushOutcome } from './flush-isolation.ts';
import type { FlushStatements } from './flush-sql.ts';
import { linesOf, parsedChunks, type JsonLines } from './json-lines.ts';
import type { KeyTouch, LedgerEntry, UsageValues, WriteBatch } from './ledger-rows.ts';
import { openSqliteFile } from './sqlite-file.ts';
import { sqliteFlushConnection } from './sqlite-flush-connection.ts';

export interface FlushWorkerData {
  path: string;
  statements: FlushStatements;
}

/** a batch, its journal entries and usage rows as JSON lines (each usage row its values, as encodeUsageRow writes them) */
export interface FlushRequest {
  id: number;
  entries: JsonLines;
  usage: JsonLines;
  touches: KeyTouch[];
}

/** the outcome with its written keys as an array; an error means "retry the whole batch" (see flushIsolating) */
export type FlushReply = { id: number; outcome: Omit<FlushOutcome, 'written'> & { written: string[] } } | { id: number; error: string };

const { path, statements } = workerData as FlushWorkerData;

// a flush of a few hundred rows takes milliseconds: requests should not wait behind it on one core
lowerThisThread();
const connection = sqliteFlushConnection(openSqliteFile(path));
const ledger = { flush: (batch: WriteBatch) => writeBatch(connection, statements, rowsOfBatch(batch)) };
const deadLetters = { insert: (letter: Parameters<typeof insertDeadLetter>[2]) => insertDeadLetter(connection, statements, letter) };

// the rows are parsed a statement's worth at a time (json-lines.ts); as objects all at once only
// when a row is at fault. async: whatever throws becomes the reply's error, never a flush without a reply
const flush = async ({ entries, usage, touches }: FlushRequest): Promise<FlushOutcome> =>
  flushIsolatingFrom(
    () => writeBatch(connection, statements, { entries: parsedChunks<LedgerEntry>(entries), usage: parsedChunks<UsageValues>(usage), touches }),
    () => ({ entries: linesOf(entries).map((line) => JSON.parse(line) as LedgerEntry), usage, touches }),
    ledger,
    deadLetters,
  );

// one flush at a time, in the order sent: a transaction never interleaves with another's statements
let queue: Promise<unknown> = Promise.resolve();
parentPort!.on('message', (request: FlushRequest) => {
  queue = queue.then(() =>
    flush(request).then(
      (outcome) => parentPort!.postMessage({ id: request.id, outcome: { ...outcome, written: [...outcome.written] } } satisfies FlushReply),
      (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies FlushReply),
    ),
  );
});
