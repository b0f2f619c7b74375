import type { Kysely } from 'kysely';
import type { Database, UsageRow } from '../schema.ts';
import { dimensionConditions, type UsageFilter } from './usage-filter.ts';

/** One page of raw usage rows, newest first, by id cursor (no COUNT: it stays fast at any size). */
export async function usageRows(db: Kysely<Database>, filter: UsageFilter, limit: number, beforeId?: number): Promise<UsageRow[]> {
  let q = db
    .selectFrom('usage_log')
    .selectAll()
    .where('created_at', '>=', filter.from)
    .where('created_at', '<', filter.to)
    .where((eb) => eb.and(dimensionConditions(eb, filter)))
    .orderBy('id', 'desc')
    .limit(limit);
  if (filter.status === 'ok') q = q.where('status', '<', 400);
  else if (filter.status === 'error') q = q.where('status', '>=', 400);
  else if (typeof filter.status === 'number') q = q.where('status', '=', filter.status);
  if (beforeId !== undefined) q = q.where('id', '<', beforeId);
  return q.execute();
}

/** Every matching row, newest first, a page at a time (for the CSV export). */
export async function* allUsageRows(db: Kysely<Database>, filter: UsageFilter, pageSize = 1000): AsyncGenerator<UsageRow> {
  let before: number | undefined;
  for (;;) {
    const page = await usageRows(db, filter, pageSize, before);
    yield* page;
    if (page.length < pageSize) return;
    before = page[page.length - 1]!.id;
  }
}
