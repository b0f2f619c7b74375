import type { Kysely, Transaction } from 'kysely';
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS, type UsageRollupTable } from '../console-schema.ts';
import { RowStatement, statementChunks } from '../row-statement.ts';
import type { Database, NewUsageRow } from '../schema.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

type RollupRow = { [K in keyof UsageRollupTable]: number | string };
type Measure = Exclude<keyof UsageRollupTable, 'bucket' | 'account_id' | 'key_id' | 'model' | 'provider_id' | 'endpoint' | 'is_error'>;

const MEASURES: Measure[] = ['requests', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'units', 'cost_nano', 'latency_ms_sum', ...LATENCY_COLUMNS];
const KEY_COLUMNS = ['bucket', 'account_id', 'key_id', 'model', 'provider_id', 'endpoint', 'is_error'] as const;
const ROLLUP_TABLES = [
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
      for (const m of MEASURES) row[m] = 0;
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

/**
 * Adds flushed batches of usage rows to the hourly and daily rollups, inside the flush
 * transaction: the rollups change exactly when the rows they summarise become visible.
 */
export function usageRollups(db: Kysely<Database>) {
  const columns = [...KEY_COLUMNS, ...MEASURES];
  const upserts = ROLLUP_TABLES.map(
    ([table, width]) =>
      [
        width,
        new RowStatement(columns, (rows) =>
          db
            .insertInto(table)
            .values(rows as never)
            .onConflict((oc) =>
              oc.columns([...KEY_COLUMNS]).doUpdateSet((eb) => {
                const set: Record<string, unknown> = {};
                for (const m of MEASURES) set[m] = eb(eb.ref(`${table}.${m}`), '+', eb.ref(`excluded.${m}`));
                return set as never;
              }),
            ),
        ),
      ] as const,
  );
  return {
    async add(trx: Transaction<Database>, usage: readonly NewUsageRow[]): Promise<void> {
      if (usage.length === 0) return;
      for (const [width, upsert] of upserts) {
        // a few rows per flush (one per dimension set): read by name
        const rows = aggregateUsage(usage, width).map((row) => columns.map((column) => row[column]));
        for (const part of statementChunks(rows)) await trx.executeQuery(upsert.compile(part));
      }
    },
  };
}
