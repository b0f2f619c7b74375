import { createHash } from 'node:crypto';
import type { LedgerEntry } from './repositories/ledger.ts';
import type { NewUsageRow } from './schema.ts';

/** What a row held that its column cannot: reported once per column and kind of problem. */
export type RowFix = (column: string, problem: string) => void;

// Column limits. The money and times are bigint (a JS safe integer), counters and flags are
// PostgreSQL `integer` (int4), `units` is double precision but must be finite: the usage row
// crosses to the flush thread as JSON, where NaN and ±Infinity become null.
const INT4_MAX = 2_147_483_647;
const INT8_MAX = Number.MAX_SAFE_INTEGER;
const UNITS_MAX = 1e15;
/** identifiers under a unique index: longer ones are replaced by a prefix and a hash, never merely clipped */
const KEY_MAX = 256;
/** model names, endpoints, error kinds */
const NAME_MAX = 256;
/** free text (journal notes) */
const NOTE_MAX = 1024;

/**
 * Makes a row fit its table before it is queued, in place and at a fixed cost per column (a
 * type check, and for strings a well-formedness and NUL scan): strings become valid UTF-16
 * without NUL (lone surrogates replaced, which encodes as valid UTF-8) within the column's
 * length, a non-string in a text column becomes text, numbers become finite integers within the
 * column's range (NaN → 0, out of range → the nearest bound). A row that reaches the database
 * can then only be refused for a reason the database alone knows (a constraint), which the
 * flush isolates (flush-isolation.ts). Each problem is reported once per column and kind.
 */
export class RowGuard {
  private readonly reported = new Set<string>();
  private readonly report: RowFix;

  constructor(report: RowFix) {
    this.report = report;
  }

  usage(row: NewUsageRow): NewUsageRow {
    row.request_id = this.key(row.request_id, 'usage_log.request_id');
    row.created_at = this.int(row.created_at, 0, INT8_MAX, 'usage_log.created_at');
    row.account_id = this.text(row.account_id, KEY_MAX, 'usage_log.account_id');
    row.key_id = this.text(row.key_id, KEY_MAX, 'usage_log.key_id');
    row.model = this.text(row.model, NAME_MAX, 'usage_log.model');
    row.endpoint = this.text(row.endpoint, NAME_MAX, 'usage_log.endpoint');
    row.provider_id = row.provider_id === null ? null : this.text(row.provider_id, KEY_MAX, 'usage_log.provider_id');
    row.status = this.int(row.status, 0, INT4_MAX, 'usage_log.status');
    row.prompt_tokens = this.int(row.prompt_tokens, 0, INT4_MAX, 'usage_log.prompt_tokens');
    row.completion_tokens = this.int(row.completion_tokens, 0, INT4_MAX, 'usage_log.completion_tokens');
    row.cached_tokens = this.int(row.cached_tokens, 0, INT4_MAX, 'usage_log.cached_tokens');
    row.units = this.finite(row.units, UNITS_MAX, 'usage_log.units');
    row.cost_nano = this.int(row.cost_nano, -INT8_MAX, INT8_MAX, 'usage_log.cost_nano');
    row.latency_ms = this.int(row.latency_ms, 0, INT4_MAX, 'usage_log.latency_ms');
    row.estimated = row.estimated === 0 || row.estimated === 1 ? row.estimated : this.flag(row.estimated, 'usage_log.estimated');
    row.error_type = row.error_type === null ? null : this.text(row.error_type, NAME_MAX, 'usage_log.error_type');
    row.session_id = row.session_id === null ? null : this.text(row.session_id, KEY_MAX, 'usage_log.session_id');
    return row;
  }

  /** The amount is fixed here too: the ledger applies it to the balance after this (Ledger.apply). */
  entry(entry: LedgerEntry): LedgerEntry {
    entry.entryKey = this.key(entry.entryKey, 'ledger.entry_key');
    entry.accountId = this.text(entry.accountId, KEY_MAX, 'ledger.account_id');
    entry.keyId = entry.keyId === null ? null : this.text(entry.keyId, KEY_MAX, 'ledger.key_id');
    entry.requestId = entry.requestId === null ? null : this.key(entry.requestId, 'ledger.request_id');
    entry.kind = this.text(entry.kind, NAME_MAX, 'ledger.kind') as LedgerEntry['kind'];
    entry.amountNano = this.int(entry.amountNano, -INT8_MAX, INT8_MAX, 'ledger.amount_nano');
    entry.note = entry.note === null ? null : this.text(entry.note, NOTE_MAX, 'ledger.note');
    entry.createdAt = this.int(entry.createdAt, 0, INT8_MAX, 'ledger.created_at');
    return entry;
  }

  private text(value: unknown, max: number, column: string): string {
    if (typeof value === 'string' && value.length <= max && value.isWellFormed() && !value.includes('\0')) return value;
    return this.fixText(value, max, column);
  }

  /** an identifier under a unique index: too long, it becomes a prefix and the whole value's hash */
  private key(value: unknown, column: string): string {
    if (typeof value === 'string' && value.length > KEY_MAX) {
      this.once(column, `longer than ${KEY_MAX} characters (prefix and hash kept)`);
      const hash = createHash('sha256').update(value.toWellFormed()).digest('base64url');
      return this.text(`${value.slice(0, KEY_MAX - hash.length - 1)}~${hash}`, KEY_MAX, column);
    }
    return this.text(value, KEY_MAX, column);
  }

  private int(value: unknown, min: number, max: number, column: string): number {
    if (Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max) return value as number;
    return this.fixInt(value, min, max, column);
  }

  private finite(value: unknown, max: number, column: string): number {
    if (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= max) return value;
    const number = typeof value === 'number' ? value : Number(value);
    if (Number.isNaN(number)) {
      this.once(column, `not a number (${typeOf(value)}) stored as 0`);
      return 0;
    }
    this.once(column, 'out of range, clamped');
    return Math.max(-max, Math.min(max, number));
  }

  private flag(value: unknown, column: string): number {
    this.once(column, `not 0 or 1 (${typeOf(value)})`);
    return value ? 1 : 0;
  }

  private fixText(value: unknown, max: number, column: string): string {
    let text: string;
    if (typeof value === 'string') text = value;
    else {
      this.once(column, `${typeOf(value)} where text belongs, stored as text`);
      text = asText(value);
    }
    if (text.includes('\0')) {
      this.once(column, 'NUL characters removed');
      text = text.replaceAll('\0', '');
    }
    if (text.length > max) {
      this.once(column, `longer than ${max} characters, clipped`);
      text = text.slice(0, max);
    }
    if (!text.isWellFormed()) {
      // a lone surrogate (or one left by the clip) has no UTF-8 form
      this.once(column, 'lone surrogates replaced');
      text = text.toWellFormed();
    }
    return text;
  }

  private fixInt(value: unknown, min: number, max: number, column: string): number {
    const number = typeof value === 'number' ? value : typeof value === 'bigint' || typeof value === 'string' || typeof value === 'boolean' ? Number(value) : Number.NaN;
    if (Number.isNaN(number)) {
      this.once(column, `not a number (${typeOf(value)}) stored as 0`);
      return 0;
    }
    if (number < min || number > max) {
      this.once(column, 'out of range, clamped');
      return number < min ? min : max;
    }
    if (!Number.isInteger(number)) this.once(column, 'not an integer, rounded');
    else if (typeof value !== 'number') this.once(column, `${typeOf(value)} where an integer belongs`);
    return Math.round(number);
  }

  private once(column: string, problem: string): void {
    const id = `${column}: ${problem}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.report(column, problem);
  }
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? 'number' : 'Infinity';
  return typeof value;
}

/** JSON for structures (bounded by the clip after it); a structure too deep to encode is named, not recursed */
function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return `[${typeOf(value)}]`;
  }
}
