import { sql, type Kysely, type RawBuilder } from 'kysely';
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from '../console-schema.ts';
import { DAY_MS, HOUR_MS } from '../usage-aggregate.ts';
import type { Database } from '../schema.ts';
import { dimensionConditions, type UsageFilter } from './usage-filter.ts';

/**
 * Charts and totals read the hourly and daily rollups, never the usage rows: their cost grows
 * with hours × dimensions, not with requests.
 */

type RollupTable = 'usage_rollup_hour' | 'usage_rollup_day';
export type GroupBy = 'model' | 'key_id' | 'account_id' | 'provider_id' | 'endpoint';

export interface Totals {
  requests: number;
  errors: number;
  costNano: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  latencyMsSum: number;
  /** request counts per latency bucket (LATENCY_BOUNDS_MS, then everything above) */
  latency: number[];
}

export interface SeriesPoint {
  bucket: number;
  group: string;
  requests: number;
  errors: number;
  costNano: number;
  tokens: number;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const sum = (column: string): RawBuilder<number> => sql<number>`coalesce(sum(${sql.ref(column)}), 0)`;
const errors = sql<number>`coalesce(sum(case when is_error = 1 then requests else 0 end), 0)`;

/**
 * Splits [from, to) into whole UTC days (read from the daily table) and the hours at either
 * end (hourly table), so a 30-day total over every account reads ~30 rows per dimension set.
 */
export function rangeParts(from: number, to: number): Array<{ table: RollupTable; from: number; to: number }> {
  const start = Math.floor(from / HOUR_MS) * HOUR_MS;
  const end = Math.ceil(to / HOUR_MS) * HOUR_MS;
  const dayStart = Math.ceil(start / DAY_MS) * DAY_MS;
  const dayEnd = Math.floor(end / DAY_MS) * DAY_MS;
  if (dayEnd <= dayStart) return [{ table: 'usage_rollup_hour', from: start, to: end }];
  const parts: Array<{ table: RollupTable; from: number; to: number }> = [{ table: 'usage_rollup_day', from: dayStart, to: dayEnd }];
  if (start < dayStart) parts.push({ table: 'usage_rollup_hour', from: start, to: dayStart });
  if (dayEnd < end) parts.push({ table: 'usage_rollup_hour', from: dayEnd, to: end });
  return parts;
}

function base(db: Kysely<Database>, table: RollupTable, filter: UsageFilter, from: number, to: number) {
  let q = db
    .selectFrom(table)
    .where('bucket', '>=', from)
    .where('bucket', '<', to)
    .where((eb) => eb.and(dimensionConditions(eb, filter)));
  if (filter.status === 'ok' || (typeof filter.status === 'number' && filter.status < 400)) q = q.where('is_error', '=', 0);
  else if (filter.status === 'error' || typeof filter.status === 'number') q = q.where('is_error', '=', 1);
  return q;
}

export async function rollupTotals(db: Kysely<Database>, filter: UsageFilter): Promise<Totals> {
  const totals: Totals = { requests: 0, errors: 0, costNano: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, latencyMsSum: 0, latency: LATENCY_COLUMNS.map(() => 0) };
  for (const part of rangeParts(filter.from, filter.to)) {
    const row = (await base(db, part.table, filter, part.from, part.to)
      .select([
        sum('requests').as('requests'),
        errors.as('errors'),
        sum('cost_nano').as('cost_nano'),
        sum('prompt_tokens').as('prompt_tokens'),
        sum('completion_tokens').as('completion_tokens'),
        sum('cached_tokens').as('cached_tokens'),
        sum('latency_ms_sum').as('latency_ms_sum'),
        ...LATENCY_COLUMNS.map((c) => sum(c).as(c)),
      ])
      .executeTakeFirstOrThrow()) as Record<string, unknown>;
    totals.requests += num(row.requests);
    totals.errors += num(row.errors);
    totals.costNano += num(row.cost_nano);
    totals.promptTokens += num(row.prompt_tokens);
    totals.completionTokens += num(row.completion_tokens);
    totals.cachedTokens += num(row.cached_tokens);
    totals.latencyMsSum += num(row.latency_ms_sum);
    LATENCY_COLUMNS.forEach((c, i) => (totals.latency[i]! += num(row[c])));
  }
  return totals;
}

/** The latency (upper bound of the histogram bucket) under which `quantile` of requests finished. */
export function latencyQuantile(histogram: number[], quantile: number): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= quantile * total) return LATENCY_BOUNDS_MS[i] ?? Number.POSITIVE_INFINITY;
  }
  return Number.POSITIVE_INFINITY;
}

export interface SeriesOptions {
  granularity: 'hour' | 'day';
  group: GroupBy | null;
  /**
   * Days start here (local midnight of `filter.from`, so whole-hour time zones get local days);
   * without it, days are UTC days read from the daily table.
   */
  dayOrigin?: number;
}

/** Buckets of the chart. Hourly buckets and local days come from the hourly table; UTC days from the daily one. */
export async function rollupSeries(db: Kysely<Database>, filter: UsageFilter, options: SeriesOptions): Promise<SeriesPoint[]> {
  const useDays = options.granularity === 'day' && options.dayOrigin === undefined;
  const table: RollupTable = useDays ? 'usage_rollup_day' : 'usage_rollup_hour';
  const width = useDays ? DAY_MS : HOUR_MS;
  const from = options.dayOrigin ?? Math.floor(filter.from / width) * width;
  const to = Math.ceil(filter.to / width) * width;
  const bucketExpr =
    options.granularity === 'day' && options.dayOrigin !== undefined
      ? sql<number>`((bucket - ${sql.lit(options.dayOrigin)}) / ${sql.lit(DAY_MS)})`
      : sql<number>`bucket`;
  const groupExpr = options.group ? sql<string>`${sql.ref(options.group)}` : sql<string>`''`;
  const rows = (await base(db, table, filter, from, to)
    .select([
      bucketExpr.as('b'),
      groupExpr.as('g'),
      sum('requests').as('requests'),
      errors.as('errors'),
      sum('cost_nano').as('cost_nano'),
      sql<number>`coalesce(sum(prompt_tokens + completion_tokens), 0)`.as('tokens'),
    ])
    .groupBy(options.group ? [bucketExpr, groupExpr] : [bucketExpr])
    .orderBy(bucketExpr)
    .execute()) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    bucket: options.granularity === 'day' && options.dayOrigin !== undefined ? options.dayOrigin + num(r.b) * DAY_MS : num(r.b),
    group: String(r.g ?? ''),
    requests: num(r.requests),
    errors: num(r.errors),
    costNano: num(r.cost_nano),
    tokens: num(r.tokens),
  }));
}

export interface TopEntry {
  id: string;
  requests: number;
  errors: number;
  costNano: number;
  tokens: number;
}

/** The largest `by` values in the range, by spend. */
export async function rollupTop(db: Kysely<Database>, filter: UsageFilter, by: GroupBy, limit: number): Promise<TopEntry[]> {
  const merged = new Map<string, TopEntry>();
  for (const part of rangeParts(filter.from, filter.to)) {
    const rows = (await base(db, part.table, filter, part.from, part.to)
      .select([
        sql<string>`${sql.ref(by)}`.as('id'),
        sum('requests').as('requests'),
        errors.as('errors'),
        sum('cost_nano').as('cost_nano'),
        sql<number>`coalesce(sum(prompt_tokens + completion_tokens), 0)`.as('tokens'),
      ])
      .groupBy(sql.ref(by))
      .execute()) as Array<Record<string, unknown>>;
    for (const r of rows) {
      const id = String(r.id);
      const entry = merged.get(id) ?? { id, requests: 0, errors: 0, costNano: 0, tokens: 0 };
      entry.requests += num(r.requests);
      entry.errors += num(r.errors);
      entry.costNano += num(r.cost_nano);
      entry.tokens += num(r.tokens);
      merged.set(id, entry);
    }
  }
  return [...merged.values()].sort((a, b) => b.costNano - a.costNano || b.requests - a.requests).slice(0, limit);
}
