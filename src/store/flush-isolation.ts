import { usageList, usageRowOf, type FlushResult, type LedgerEntry, type QueuedUsageRow, type WriteBatch } from './ledger-rows.ts';
import type { DeadLetter } from './repositories/dead-letters.ts';

/** What flushIsolating writes through (the ledger's flush and the dead letters' insert, on either thread). */
export interface FlushTarget {
  /** one batch in one transaction (see writeBatch) */
  flush(batch: WriteBatch): Promise<FlushResult>;
}
export interface DeadLetterTarget {
  /** false when the row has a letter already */
  insert(letter: DeadLetter): Promise<boolean>;
}

/** What a flush did with its batch; it throws instead when the database is unavailable (the whole batch is retried). */
export interface FlushOutcome {
  /** entry keys written (see FlushResult) */
  written: Set<string>;
  /** usage rows the database refused, now in dead_letters */
  deadLettered: { rowKey: string; error: string }[];
  /** journal entries the database refused as they were, written with a sanitised note */
  sanitised: { entryKey: string; error: string }[];
  /** journal entries refused even sanitised: not written, to be kept and retried by the caller */
  stuck: LedgerEntry[];
}

const ERROR_MAX = 2000;
const ROW_JSON_MAX = 64 * 1024;

/**
 * Writes a batch so that one row the database refuses cannot hold back the others. The batch is
 * written in one transaction as always; when that fails because of a row (isRowFault), the
 * batch is split in halves, each written in its own transaction, down to the single rows at
 * fault — k bad rows among n cost about 2·k·log2(n) extra transactions, on the failure path only.
 * A bad usage row goes to dead_letters with the database's error; a bad journal entry is
 * written again with a sanitised note, and kept for the next flush if even that is refused (an
 * entry is never dropped). Any other failure (the database down, a lost connection, a lock)
 * throws: the caller keeps the whole batch and retries it later. Rows written before such a
 * failure are written again harmlessly: journal rows are unique by entry key, usage rows by
 * request id and dead letters by row, all inserted with ON CONFLICT DO NOTHING.
 */
export function flushIsolating(ledger: FlushTarget, deadLetters: DeadLetterTarget, batch: WriteBatch): Promise<FlushOutcome> {
  return flushIsolatingFrom(() => ledger.flush(batch), () => batch, ledger, deadLetters);
}

/**
 * flushIsolating for a batch held in another form (the flush thread's JSON lines): `whole` writes
 * it in one transaction; `decode` makes its rows as objects, called only when a row is at fault.
 */
export async function flushIsolatingFrom(
  whole: () => Promise<FlushResult>,
  decode: () => WriteBatch,
  ledger: FlushTarget,
  deadLetters: DeadLetterTarget,
): Promise<FlushOutcome> {
  const outcome: FlushOutcome = { written: new Set(), deadLettered: [], sanitised: [], stuck: [] };
  try {
    outcome.written = (await whole()).written;
    return outcome;
  } catch (error) {
    if (!isRowFault(error)) throw error;
  }
  const batch = decode();
  const items: Item[] = [...batch.entries.map((entry) => ({ entry })), ...usageList(batch.usage).map((usage) => ({ usage }))];
  const write = async (part: Item[]): Promise<void> => {
    try {
      const { written } = await ledger.flush(batchOf(part));
      for (const key of written) outcome.written.add(key);
    } catch (error) {
      if (!isRowFault(error)) throw error;
      if (part.length > 1) return halves(part);
      const item = part[0]!;
      if ('usage' in item) await deadLetter(item.usage, error);
      else await sanitise(item.entry, error);
    }
  };
  const halves = async (part: Item[]): Promise<void> => {
    const middle = part.length >> 1;
    await write(part.slice(0, middle));
    await write(part.slice(middle));
  };
  const deadLetter = async (queued: QueuedUsageRow, error: unknown): Promise<void> => {
    const row = usageRowOf(queued);
    const rowKey = clean(String(row.request_id), 256);
    const message = errorText(error);
    if (await deadLetters.insert({ table: 'usage_log', rowKey, error: message, rowJson: rowJsonOf(row) })) outcome.deadLettered.push({ rowKey, error: message });
  };
  const sanitise = async (entry: LedgerEntry, error: unknown): Promise<void> => {
    const note = `sanitised: ${entry.note === null ? '' : entry.note.replace(/[^\x20-\x7e]/g, '?').slice(0, 256)}`;
    try {
      const { written } = await ledger.flush({ entries: [{ ...entry, note }], usage: [], touches: [] });
      for (const key of written) outcome.written.add(key);
      outcome.sanitised.push({ entryKey: entry.entryKey, error: errorText(error) });
    } catch (again) {
      if (!isRowFault(again)) throw again;
      outcome.stuck.push(entry);
    }
  };
  if (items.length > 1) await halves(items);
  else if (items.length === 1) await write(items);
  // key last-use times are informational: written on their own, dropped if refused
  if (batch.touches.length > 0) {
    try {
      await ledger.flush({ entries: [], usage: [], touches: batch.touches });
    } catch (error) {
      if (!isRowFault(error)) throw error;
    }
  }
  return outcome;
}

type Item = { entry: LedgerEntry } | { usage: QueuedUsageRow };

function batchOf(items: Item[]): WriteBatch {
  const entries: LedgerEntry[] = [];
  const usage: QueuedUsageRow[] = [];
  for (const item of items) {
    if ('entry' in item) entries.push(item.entry);
    else usage.push(item.usage);
  }
  return { entries, usage, touches: [] };
}

// SQLite result codes of a row's own making: CONSTRAINT (NOT NULL, UNIQUE, CHECK, FOREIGN KEY, a
// trigger's RAISE), TOOBIG, MISMATCH, RANGE. BUSY, LOCKED, IOERR, FULL, READONLY… are the database's.
const SQLITE_ROW_FAULTS = new Set([19, 18, 20, 25]);

/**
 * True when the error is the row's fault: the database (or the driver, binding it) refused the
 * values, and writing them again will fail again. Everything else — no connection, a lock, a
 * disk, a bug of ours — is not, and never sends a row to dead_letters; the batch is retried.
 */
export function isRowFault(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code !== 'string') return false;
  // node:sqlite: a value it cannot bind ("Provided value cannot be bound to SQLite parameter 56")
  if (code === 'ERR_INVALID_ARG_TYPE' || code === 'ERR_INVALID_ARG_VALUE') return true;
  if (code === 'ERR_SQLITE_ERROR') return typeof errcode === 'number' && SQLITE_ROW_FAULTS.has(errcode & 0xff);
  // PostgreSQL SQLSTATE: 22 data exception (out of range, invalid byte sequence, bad text
  // representation), 23 integrity constraint, 54000 a value too large for an index, 42804 a datatype mismatch
  if (/^[0-9A-Z]{5}$/.test(code)) return code.startsWith('22') || code.startsWith('23') || code === '54000' || code === '42804';
  return false;
}

function errorText(error: unknown): string {
  return clean(error instanceof Error ? error.message : String(error), ERROR_MAX);
}

function rowJsonOf(row: object): string {
  let json: string;
  try {
    json = JSON.stringify(row);
  } catch (error) {
    json = JSON.stringify({ unserialisable: errorText(error) });
  }
  return clean(json, ROW_JSON_MAX);
}

/** text any column takes: no NUL, no lone surrogate, at most `max` characters */
function clean(text: string, max: number): string {
  return text.replaceAll('\0', '').slice(0, max).toWellFormed();
}
