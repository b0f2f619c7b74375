import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

const BATCH = 5_000;

/** Deletes usage rows older than `cutoff` in batches (rollups and the ledger stay); returns how many. */
export async function deleteUsageBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await db
      .deleteFrom('usage_log')
      .where('id', 'in', (eb) => eb.selectFrom('usage_log').select('id').where('created_at', '<', cutoff).limit(BATCH))
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    deleted += n;
    if (n < BATCH) return deleted;
  }
}
