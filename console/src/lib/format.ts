import { lang } from '../i18n/index.ts';

const NANO = 1_000_000_000n;

// Building an Intl formatter costs far more than using one: keep one per language and options.
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${lang.get()}|${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(lang.get(), options)));
  return format;
}

function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${lang.get()}|${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) dateFormats.set(key, (format = new Intl.DateTimeFormat(lang.get(), options)));
  return format;
}

/** "12.3400001" (exact decimal from the API) → "$12.3400001" in the reader's locale, never rounded. */
export function money(usd: string | null | undefined, options: { min?: number; max?: number } = {}): string {
  if (usd === null || usd === undefined) return '—';
  const format = numberFormat({ style: 'currency', currency: 'USD', minimumFractionDigits: options.min ?? 2, maximumFractionDigits: options.max ?? 9 });
  // Intl formats decimal strings exactly (no float on the way)
  return format.format(usd as unknown as number);
}

/**
 * An amount as a person reads it on a card or in a table: "12.345" → "$12.35" (half-up to cents),
 * "0.0004" → "<$0.01" (not zero, under a cent), "-3" → "−$3.00". The exact value goes in a title
 * (see <Money>) and the ledger.
 */
export function cents(usd: string | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  const m = /^([-+]?)(\d+)(?:\.(\d*))?$/.exec(usd);
  if (!m) return money(usd);
  const digits = (m[3] ?? '').padEnd(3, '0');
  const rounded = BigInt(m[2]!) * 100n + BigInt(digits.slice(0, 2)) + (digits[2]! >= '5' ? 1n : 0n);
  const underACent = m[2] === '0' && digits.startsWith('00') && /[1-9]/.test(digits);
  const sign = m[1] === '-' && (rounded > 0n || underACent) ? '\u2212' : '';
  if (underACent) return `${sign}<${money('0.01', { max: 2 })}`;
  return sign + money(`${rounded / 100n}.${String(rounded % 100n).padStart(2, '0')}`, { max: 2 });
}

/** Integer nano-dollars (chart data) → exact decimal string. */
export function usdOfNano(nano: number): string {
  const negative = nano < 0;
  const abs = BigInt(Math.abs(Math.round(nano)));
  const fraction = (abs % NANO).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${negative ? '-' : ''}${abs / NANO}.${fraction}`;
}

export const moneyOfNano = (nano: number, options?: { min?: number; max?: number }) => money(usdOfNano(nano), options);

/** For chart axes only (never for amounts a customer reads as a figure). */
export function compactMoney(value: number): string {
  return numberFormat({ style: 'currency', currency: 'USD', notation: value >= 1000 ? 'compact' : 'standard', maximumSignificantDigits: 3 }).format(value);
}

export function integer(value: number): string {
  return numberFormat({}).format(value);
}

export function percent(value: number): string {
  return numberFormat({ style: 'percent', maximumFractionDigits: 2 }).format(value);
}

export function dateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return dateFormat({ dateStyle: 'short', timeStyle: 'medium' }).format(new Date(value));
}

export function date(value: string | number | null | undefined, utc = false): string {
  if (value === null || value === undefined) return '—';
  return dateFormat({ dateStyle: 'medium', ...(utc && { timeZone: 'UTC' }) }).format(new Date(value));
}

export function shortDate(value: number, utc = false): string {
  return dateFormat({ month: 'short', day: 'numeric', ...(utc && { timeZone: 'UTC' }) }).format(new Date(value));
}

export function hour(value: number): string {
  return dateFormat({ month: 'short', day: 'numeric', hour: 'numeric' }).format(new Date(value));
}

export function localMidnight(at = new Date()): number {
  return new Date(at.getFullYear(), at.getMonth(), at.getDate()).getTime();
}

/** "2025-01-31" (an <input type=date> value) → local midnight epoch ms. */
export function parseDateInput(value: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime() : undefined;
}

export function dateInputValue(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
