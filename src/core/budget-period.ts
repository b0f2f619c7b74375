/**
 * Budget periods (contract §4): UTC calendar days, ISO weeks (Monday 00:00 UTC) and calendar
 * months. A period is named by its start in epoch milliseconds; spend is kept per period kind
 * (every kind at once, so changing a budget's period keeps the spend of the new one exact).
 */
export type BudgetPeriod = 'day' | 'week' | 'month';

export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month'];

const DAY_MS = 86_400_000;

/** Where the period of `kind` holding `at` starts. */
export function periodStart(kind: BudgetPeriod, at: number): number {
  // UTC days are whole multiples of DAY_MS in epoch time (it has no leap seconds): no Date needed
  // but for the month, kept for the last day asked — every charge of a flush asks, mostly the same day
  const dayNumber = Math.floor(at / DAY_MS);
  const day = dayNumber * DAY_MS;
  if (kind === 'day') return day;
  // 1970-01-01 was a Thursday: ISO weekday 3 counting from Monday = 0
  if (kind === 'week') return day - ((((dayNumber + 3) % 7) + 7) % 7) * DAY_MS;
  if (dayNumber !== lastMonth.dayNumber) {
    const d = new Date(day);
    lastMonth.dayNumber = dayNumber;
    lastMonth.start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  return lastMonth.start;
}

const lastMonth = { dayNumber: Number.NaN, start: 0 };

/** Where the period of `kind` after the one holding `at` starts: when a spent budget is whole again. */
export function periodEnd(kind: BudgetPeriod, at: number): number {
  const start = periodStart(kind, at);
  if (kind === 'day') return start + DAY_MS;
  if (kind === 'week') return start + 7 * DAY_MS;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** A periodic budget: at most `nano` charged per `period`. */
export interface Budget {
  nano: number;
  period: BudgetPeriod;
}

/** Spend as a row keeps it: for each kind, the period it counts and its sum there. */
export type PeriodSpend = Record<BudgetPeriod, { start: number; nano: number }>;

export const isBudgetPeriod = (value: unknown): value is BudgetPeriod => value === 'day' || value === 'week' || value === 'month';

/** Adds a charge made at `at` to a spend per kind: a later period replaces an earlier one, an earlier charge no longer counts. */
export function addToSpend(spend: PeriodSpend, at: number, nano: number): void {
  for (const kind of BUDGET_PERIODS) {
    const start = periodStart(kind, at);
    const slot = spend[kind];
    if (start === slot.start) slot.nano += nano;
    else if (start > slot.start) spend[kind] = { start, nano };
  }
}

export const emptySpend = (): PeriodSpend => ({ day: { start: 0, nano: 0 }, week: { start: 0, nano: 0 }, month: { start: 0, nano: 0 } });

/** What `spend` counts in the period of `period` holding `now` (0 when it counts an earlier one). */
export function spentIn(spend: PeriodSpend, period: BudgetPeriod, now: number): number {
  const slot = spend[period];
  return slot.start === periodStart(period, now) ? slot.nano : 0;
}
