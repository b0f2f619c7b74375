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

/** The index of the first latency bound `ms` does not pass; past the last (or not a number), the overflow column's. */
export function latencyBucket(ms: number): number {
  let index = 0;
  while (index < LATENCY_BOUNDS_MS.length && !(ms <= LATENCY_BOUNDS_MS[index]!)) index++;
  return index;
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

/**
 * A row's dimensions but its bucket, as one key (computed once a row, for both rollups). The values
 * are read by index, in USAGE_COLUMNS order: 2 account, 3 key, 4 model, 5 endpoint, 6 provider,
 * 7 status; 1 created, 8–13 prompt, completion, cached, units, cost, latency (see RollupSums.add).
 */
export function dimensionKey(values: UsageValues): string {
  // RowGuard takes NULs out of every text value when a row is queued: a NUL cannot make two dimension sets one key
  return `${values[2]}\0${values[3]}\0${values[4]}\0${values[6] ?? ''}\0${values[5]}\0${values[7] >= 400 ? 1 : 0}`;
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
    // the values by index: the flush thread runs this below TurboFan (baseline code, or Maglev
    // where node was given --maglev), where destructuring walks the array's iterator (an add
    // 78 → 30 ns with Maglev alone)
    const createdAt = values[1];
    const bucket = Math.floor(createdAt / this.width) * this.width;
    let inBucket = this.byBucket.get(bucket);
    if (!inBucket) this.byBucket.set(bucket, (inBucket = new Map()));
    let row = inBucket.get(key) as Record<Measure, number> | undefined;
    if (!row) {
      // every column in one literal: rows get one fixed shape (the measures added one by one made
      // each row a dictionary, and every sum below a hash lookup: ~85 ns an add, ~30 now)
      const fresh: RollupRow = {
        bucket,
        account_id: values[2],
        key_id: values[3],
        model: values[4],
        provider_id: values[6] ?? '',
        endpoint: values[5],
        is_error: values[7] >= 400 ? 1 : 0,
        requests: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cached_tokens: 0,
        units: 0,
        cost_nano: 0,
        latency_ms_sum: 0,
        lat_0: 0,
        lat_1: 0,
        lat_2: 0,
        lat_3: 0,
        lat_4: 0,
        lat_5: 0,
        lat_6: 0,
        lat_7: 0,
        lat_8: 0,
      };
      inBucket.set(key, fresh);
      this.rows.push(fresh);
      row = fresh as Record<Measure, number>;
    }
    const latency = values[13] ?? 0;
    row.requests += 1;
    row.prompt_tokens += values[8] ?? 0;
    row.completion_tokens += values[9] ?? 0;
    row.cached_tokens += values[10] ?? 0;
    row.units += values[11] ?? 0;
    row.cost_nano += values[12] ?? 0;
    row.latency_ms_sum += latency;
    row[LATENCY_COLUMNS[latencyBucket(latency)]!] += 1;
  }
}
