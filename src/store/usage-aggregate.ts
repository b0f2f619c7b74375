import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS, type UsageRollupTable } from './console-schema.ts';
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
  const out = new Map<string, RollupRow>();
  for (const u of usage) {
    const bucket = Math.floor(u.created_at / width) * width;
    const isError = u.status >= 400 ? 1 : 0;
    const providerId = u.provider_id ?? '';
    const id = JSON.stringify([bucket, u.account_id, u.key_id, u.model, providerId, u.endpoint, isError]);
    let row = out.get(id) as Record<string, number | string> | undefined;
    if (!row) {
      row = { bucket, account_id: u.account_id, key_id: u.key_id, model: u.model, provider_id: providerId, endpoint: u.endpoint, is_error: isError };
      for (const m of ROLLUP_MEASURES) row[m] = 0;
      out.set(id, row as RollupRow);
    }
    const add = (m: Measure, v: number | undefined) => (row[m] = (row[m] as number) + (v ?? 0));
    add('requests', 1);
    add('prompt_tokens', u.prompt_tokens);
    add('completion_tokens', u.completion_tokens);
    add('cached_tokens', u.cached_tokens);
    add('units', u.units);
    add('cost_nano', u.cost_nano);
    add('latency_ms_sum', u.latency_ms);
    add(LATENCY_COLUMNS[latencyBucket(u.latency_ms ?? 0)]!, 1);
  }
  return [...out.values()];
}
