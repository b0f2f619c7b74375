import { DatabaseSync, type SQLInputValue } from 'node:sqlite';

// An SQLite connection as the gateway opens it, on the main thread (through Kysely,
// sqlite-dialect.ts) and on the flush thread (flush-worker.ts, without it).

export function openSqliteFile(path: string): DatabaseSync {
  const database = new DatabaseSync(path);
  // WAL lets readers run beside the single writer; NORMAL sync is durable at each checkpoint
  // and loses at most the last transactions on power loss (never corrupts). Temporary files in
  // memory: a flush's statements (upserts, inserts under unique keys) each keep a statement
  // journal, by default a temporary file, written page by page — half the flush thread's writes
  // (bench/syscalls.ts, strace). A statement journal holds only the pages one statement changes.
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;');
  return database;
}

/** Values as node:sqlite binds them: booleans as 0/1, undefined as NULL. */
export function toSqlite(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === undefined) return null;
    return value as SQLInputValue;
  });
}
