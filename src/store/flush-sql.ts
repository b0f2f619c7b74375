// The statements of a write-behind flush as data: SQL text compiled once by the query builder
// (src/store/flush-statements.ts, on the main thread, in the database's dialect) and the map of
// where each value binds. The flush itself (src/store/flush-batch.ts) runs them through a
// FlushConnection: the flush thread's own node:sqlite connection, or the main thread's Kysely.
// No query builder here: the flush thread loads this module without loading kysely (257 modules,
// 13–22 MB of its memory).

/** A statement compiled once, bound to new values at each use. Structured-cloneable (sent to the flush thread). */
export interface Template {
  sql: string;
  /**
   * For each parameter of `sql`, in order: ≥ 0, the value at row × width + column of the rows
   * bound; < 0, the constant at −slot − 1 (a value the builder put in the statement itself).
   */
  slots: Int32Array;
  constants: unknown[];
  /** values per row */
  width: number;
}

/** The parameters of `template` for these rows (each its values in column order); undefined binds as NULL. */
export function bind(template: Template, rows: readonly (readonly unknown[])[]): unknown[] {
  const { slots, constants, width } = template;
  const parameters = new Array<unknown>(slots.length);
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    parameters[k] = slot < 0 ? constants[-slot - 1] : (rows[(slot / width) | 0]![slot % width] ?? null);
  }
  return parameters;
}

/** The row counts a multi-row statement is compiled for (see statementChunks). */
export const CHUNK_SIZES = [64, 32, 16, 8, 4, 2, 1] as const;

/**
 * Splits rows into statements of 64 rows, then of powers of two for the rest: at most seven
 * statement shapes per table, so compiled templates and prepared statements are reused from one
 * flush to the next.
 */
export function statementChunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  let i = 0;
  for (const size of chunkSizes(items.length)) {
    out.push(items.slice(i, i + size));
    i += size;
  }
  return out;
}

/** The sizes of statementChunks' statements for `count` rows, in order. */
export function chunkSizes(count: number): number[] {
  const out: number[] = [];
  let left = count;
  for (const size of CHUNK_SIZES) {
    while (left >= size && (size === CHUNK_SIZES[0] || left < size * 2)) {
      out.push(size);
      left -= size;
    }
  }
  return out;
}

/** Multi-row statements by row count (one of CHUNK_SIZES). */
export type ByRowCount = Record<number, Template>;

/**
 * A multi-row insert that skips the rows already written (ON CONFLICT on a unique key DO NOTHING),
 * and how to tell which it wrote: RETURNING the key, or — where that clause is dear — the count it
 * changed and, when that falls short, the keys of the rows above the largest id before it. On
 * SQLite a RETURNING clause cost ~1 µs a journal row (bench/flush-cost.ts); rows already written
 * are rare (a batch retried after a lost acknowledgement, a settlement log replayed).
 */
export interface FreshInsert {
  /** by row count, RETURNING the key column */
  returning: ByRowCount;
  /** by row count, the same without RETURNING */
  quiet: ByRowCount;
  /** the table's largest id (NULL when empty), no values */
  lastId: Template;
  /** the key column of the rows whose id is above the one value bound */
  keysSince: Template;
  /** the key's position in a row's values */
  key: number;
}

/** Every statement a flush runs, compiled for one dialect. */
export interface FlushStatements {
  /** journal rows (values in LEDGER_COLUMNS order), ON CONFLICT (entry_key) DO NOTHING */
  insertLedger: FreshInsert;
  /** usage rows (values in USAGE_COLUMNS order), ON CONFLICT (request_id) DO NOTHING */
  insertUsage: FreshInsert;
  /** rollup rows added to usage_rollup_hour and usage_rollup_day, in ROLLUP_TABLES order */
  upsertRollups: [ByRowCount, ByRowCount];
  /** the change counter's next value, RETURNING value */
  nextSeq: Template;
  /**
   * Balance (or key spend) += delta, the spend-per-period columns, seq: indexed by the period
   * kinds the batch charges (bit i: BUDGET_PERIODS[i]); values [delta, (start, nano) per kind
   * charged, seq, updated_at (accounts only), id].
   */
  updateAccount: Template[];
  updateKey: Template[];
  /** values [last_used_at, key id] */
  touchKey: Template;
  /** values [table_name, row_key, error, row_json, created_at]; ON CONFLICT DO NOTHING RETURNING id */
  insertDeadLetter: Template;
}

/**
 * Runs compiled statements: the rows a statement returns, each as its values in the order of the
 * statement's RETURNING columns ([] for a statement that returns none). Arrays, not objects: the
 * flush reads a few columns of hundreds of rows, and node:sqlite makes an array of a row at less
 * cost than an object with its column names (~10 % of a journal insert).
 */
export type Run = <Row extends unknown[] = unknown[]>(template: Template, rows: readonly (readonly unknown[])[]) => Promise<Row[]>;

/** Runs a FreshInsert: the rows it wrote, in order (`rows` itself when it wrote them all). */
export type InsertFresh = <Row extends readonly unknown[]>(insert: FreshInsert, rows: readonly Row[]) => Promise<readonly Row[]>;

export interface FlushConnection {
  /** `body` in one transaction: committed when it resolves, rolled back when it throws */
  transaction<T>(body: (run: Run, insertFresh: InsertFresh) => Promise<T>): Promise<T>;
  run: Run;
}

/**
 * The rows an insert wrote, given their keys: of rows sharing a key, the first (the later ones
 * met it as a conflict). All of them: `rows` itself.
 */
export function rowsWithKeys<Row extends readonly unknown[]>(rows: readonly Row[], key: number, keys: readonly unknown[]): readonly Row[] {
  if (keys.length === rows.length) return rows;
  const written = new Set(keys);
  return rows.filter((row) => written.delete(row[key]));
}
