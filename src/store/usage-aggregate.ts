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
  return aggregateUsageValues(usage.map(usageValues), width);
}

/**
 * Each row's dimensions but its bucket, as one key. Made once for both rollups: a key string's
 * hash is computed at its first lookup and kept with it.
 */
export function dimensionKeys(usage: readonly UsageValues[]): string[] {
  return usage.map((values) => {
    const [, , accountId, keyId, model, endpoint, provider, status] = values;
    // RowGuard takes NULs out of every text value when a row is queued: a NUL cannot make two dimension sets one key
    return `${accountId}\0${keyId}\0${model}\0${provider ?? ''}\0${endpoint}\0${status >= 400 ? 1 : 0}`;
  });
}

/** aggregateUsage over rows as the flush binds them (USAGE_COLUMNS order); `keys`: their dimensionKeys. */
export function aggregateUsageValues(usage: readonly UsageValues[], width: number, keys = dimensionKeys(usage)): RollupRow[] {
  const out = new Map<number, Map<string, RollupRow>>();
  const rows: RollupRow[] = [];
  for (let i = 0; i < usage.length; i++) {
    const [, createdAt, accountId, keyId, model, endpoint, provider, status, prompt, completion, cached, units, cost, latency] = usage[i]!;
    const bucket = Math.floor(createdAt / width) * width;
    let inBucket = out.get(bucket);
    if (!inBucket) out.set(bucket, (inBucket = new Map()));
    let row = inBucket.get(keys[i]!) as Record<Measure, number> | undefined;
    if (!row) {
      const fresh: Record<string, number | string> = { bucket, account_id: accountId, key_id: keyId, model, provider_id: provider ?? '', endpoint, is_error: status >= 400 ? 1 : 0 };
      for (const m of ROLLUP_MEASURES) fresh[m] = 0;
      inBucket.set(keys[i]!, fresh as RollupRow);
      rows.push(fresh as RollupRow);
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
  return rows;
}
