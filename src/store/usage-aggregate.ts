import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS, type UsageRollupTable } from './console-schema.ts';
import { usageValues, type UsageValues } from './ledger-rows.ts';
import type { NewUsageRow } from './schema.ts';

// How usage rows sum into the hourly and daily rollups. No query builder here: the flush thread
// loads this module (src/store/flush-worker.ts).

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export type RollupRow = { [K in keyof UsageRollupTable]: number | string };
type Measure = Exclude<keyof UsageRollupTable, 'bucket' | 'account_id' | 'key_id' | 'model' | 'provider_id' | 'endpoint' | 'is_error'>;

export const ROLLUP_MEASURES: Measure[] = ['requests', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'units', 'cost_nano', 'latency_ms_sum', ...LATENCY_COLUMNS];
export const ROLLUP_KEY_COLUMNS = ['bucket', 'account_id', 'key_id', 'model', 'provider_id', 'endpoint', 'is_error'] as const;
/** the columns of a rollup upsert, in the order its values are bound */
export const ROLLUP_COLUMNS = [...ROLLUP_KEY_COLUMNS, ...ROLLUP_MEASURES];
export const ROLLUP_TABLES = [
  ['usage_rollup_hour', HOUR_MS],
  ['usage_rollup_day', DAY_MS],
] as const;

export function latencyBucket(ms: number): number {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return index === -1 ? LATENCY_BOUNDS_MS.length : index;
}

/** Sums usage rows into one rollup row per bucket of `width` ms and dimension set. Pure. */
export function aggregateUsage(usage: readonly NewUsageRow[], width: number): RollupRow[] {
  const sums = new RollupSums(width);
  for (const row of usage) {
    const values = usageValues(row);
    sums.add(values, dimensionKey(values));
  }
  return sums.rows;
}

/** A row's dimensions but its bucket, as one key (computed once a row, for both rollups). */
export function dimensionKey(values: UsageValues): string {
  const [, , accountId, keyId, model, endpoint, provider, status] = values;
  // RowGuard takes NULs out of every text value when a row is queued: a NUL cannot make two dimension sets one key
  return `${accountId}\0${keyId}\0${model}\0${provider ?? ''}\0${endpoint}\0${status >= 400 ? 1 : 0}`;
}

/**
 * Rollup rows of `width`-ms buckets, summed a usage row at a time: the flush adds each statement's
 * rows as it inserts them and holds only the sums (one row a bucket and dimension set).
 */
export class RollupSums {
  readonly rows: RollupRow[] = [];
  private readonly byBucket = new Map<number, Map<string, RollupRow>>();
  private readonly width: number;

  constructor(width: number) {
    this.width = width;
  }

  /** `key`: the row's dimensionKey */
  add(values: UsageValues, key: string): void {
    const [, createdAt, accountId, keyId, model, endpoint, provider, status, prompt, completion, cached, units, cost, latency] = values;
    const bucket = Math.floor(createdAt / this.width) * this.width;
    let inBucket = this.byBucket.get(bucket);
    if (!inBucket) this.byBucket.set(bucket, (inBucket = new Map()));
    let row = inBucket.get(key) as Record<Measure, number> | undefined;
    if (!row) {
      const fresh: Record<string, number | string> = { bucket, account_id: accountId, key_id: keyId, model, provider_id: provider ?? '', endpoint, is_error: status >= 400 ? 1 : 0 };
      for (const m of ROLLUP_MEASURES) fresh[m] = 0;
      inBucket.set(key, fresh as RollupRow);
      this.rows.push(fresh as RollupRow);
      row = fresh as Record<Measure, number>;
    }
    row.requests += 1;
    row.prompt_tokens += prompt ?? 0;
    row.completion_tokens += completion ?? 0;
    row.cached_tokens += cached ?? 0;
    row.units += units ?? 0;
    row.cost_nano += cost ?? 0;
    row.latency_ms_sum += latency ?? 0;
    row[LATENCY_COLUMNS[latencyBucket(latency ?? 0)]!] += 1;
  }
}
