import { jsonLines, linesOf, type JsonLines } from './json-lines.ts';
import type { LedgerKind, NewUsageRow } from './schema.ts';

// What a write-behind flush writes, as the state sync queues it. No query builder here: the
// flush thread loads this module (src/store/flush-worker.ts).

export interface LedgerEntry {
  entryKey: string;
  accountId: string;
  keyId: string | null;
  requestId: string | null;
  kind: LedgerKind;
  /** signed: credits positive, charges negative */
  amountNano: number;
  note: string | null;
  createdAt: number;
}

export interface KeyTouch {
  keyId: string;
  lastUsedAt: number;
}

export interface WriteBatch {
  entries: LedgerEntry[];
  /**
   * Each entry's JSON, in order, when the state sync encoded them as it queued them (for the
   * settlement log, and for a flusher that takes encoded rows): such a flusher sends this text to
   * its thread instead of the objects (see QueuedUsageRow).
   */
  encodedEntries?: JsonLines;
  /** the rows, or — queued for a flusher that takes encoded rows — their encodeUsageRow texts as lines */
  usage: QueuedUsageRow[] | JsonLines;
  touches: KeyTouch[];
}

/**
 * A usage row as queued: the row, or its values as JSON text (`encodeUsageRow`). Rows bound for
 * the flush thread are encoded when they are queued, a row per request: a structured clone of a
 * few hundred row objects at flush time held the event loop (~0.3 ms for 300 of them, against
 * ~0.05 ms for their 300 strings).
 */
export type QueuedUsageRow = NewUsageRow | string;

export interface FlushResult {
  /** entry keys actually written (duplicates of an earlier entry key are skipped, never applied twice) */
  written: Set<string>;
}

// The flush binds rows as values in column order (RowStatement): each list below and the function
// after it name the same columns in the same order, property by property (no lookup by name).
export const LEDGER_COLUMNS = ['entry_key', 'account_id', 'key_id', 'request_id', 'kind', 'amount_nano', 'note', 'created_at'] as const;

/** A journal entry's values in LEDGER_COLUMNS order. */
export type LedgerValues = [entryKey: string, accountId: string, keyId: string | null, requestId: string | null, kind: LedgerKind, amountNano: number, note: string | null, createdAt: number];

export function ledgerValues(e: LedgerEntry): LedgerValues {
  return [e.entryKey, e.accountId, e.keyId, e.requestId, e.kind, e.amountNano, e.note, e.createdAt];
}

export const USAGE_COLUMNS = [
  'request_id', 'created_at', 'account_id', 'key_id', 'model', 'endpoint', 'provider_id', 'status', 'prompt_tokens',
  'completion_tokens', 'cached_tokens', 'units', 'cost_nano', 'latency_ms', 'estimated', 'error_type', 'session_id',
] as const satisfies readonly (keyof NewUsageRow)[];

/** A usage row's values in USAGE_COLUMNS order: what the flush binds, and what an encoded row holds. */
export type UsageValues = { -readonly [I in keyof typeof USAGE_COLUMNS & `${number}`]: NewUsageRow[(typeof USAGE_COLUMNS)[I]] } & unknown[];

export function usageValues(row: NewUsageRow): UsageValues {
  return [
    row.request_id, row.created_at, row.account_id, row.key_id, row.model, row.endpoint, row.provider_id, row.status, row.prompt_tokens,
    row.completion_tokens, row.cached_tokens, row.units, row.cost_nano, row.latency_ms, row.estimated, row.error_type, row.session_id,
  ] as UsageValues;
}

/** The row's values in USAGE_COLUMNS order, as JSON (~0.7 µs a row). */
export function encodeUsageRow(row: NewUsageRow): string {
  return JSON.stringify(usageValues(row));
}

/** A batch's usage rows one by one (as lines: each its text). */
export function usageList(usage: WriteBatch['usage']): QueuedUsageRow[] {
  return Array.isArray(usage) ? usage : linesOf(usage);
}

/** The entries' JSON as lines (what the state sync encodes as it queues them). */
export function entryLines(entries: readonly LedgerEntry[]): JsonLines {
  return jsonLines(entries.map((entry) => JSON.stringify(entry)));
}

/** A batch's usage rows as lines of their encodeUsageRow texts (already lines: as they are). */
export function usageLines(usage: WriteBatch['usage']): JsonLines {
  return Array.isArray(usage) ? jsonLines(usage.map(usageRowText)) : usage;
}

/** A queued usage row as encodeUsageRow's text. */
function usageRowText(queued: QueuedUsageRow): string {
  return typeof queued === 'string' ? queued : encodeUsageRow(queued);
}

/** A queued usage row's values (parsed when it was queued as text: the flush binds them as they are). */
export function usageValuesOf(queued: QueuedUsageRow): UsageValues {
  return typeof queued === 'string' ? (JSON.parse(queued) as UsageValues) : usageValues(queued);
}

/** A queued usage row as a row object. */
export function usageRowOf(queued: QueuedUsageRow): NewUsageRow {
  return typeof queued === 'string' ? usageRowOfValues(JSON.parse(queued) as unknown[]) : queued;
}

/** The row object of a row's values (as encodeUsageRow wrote them). */
export function usageRowOfValues(values: readonly unknown[]): NewUsageRow {
  return Object.fromEntries(USAGE_COLUMNS.map((column, i) => [column, values[i]])) as unknown as NewUsageRow;
}

// a column added to usage_log must be added to USAGE_COLUMNS (this line stops compiling)
const usageColumnsComplete: Exclude<keyof NewUsageRow, (typeof USAGE_COLUMNS)[number]> extends never ? true : never = true;
void usageColumnsComplete;
