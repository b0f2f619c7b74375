import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * One usage row per request id, enforced: the write-behind inserts usage rows with ON CONFLICT
 * DO NOTHING, so a batch retried after its commit's acknowledgement was lost (a flush worker
 * that died just after COMMIT, a dropped PostgreSQL connection) is not counted twice — the
 * journal was idempotent by entry key already. Realtime rows now carry
 * `<handshake request id>:<response id>`; rows written before that shared the session's request
 * id, so every row but the first of a request id gets its row id appended first.
 */
export function usageUniqueMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`
        update usage_log set request_id = request_id || ':' || cast(id as text)
        where id not in (select min(id) from usage_log group by request_id)
      `.execute(db);
      await db.schema.dropIndex('usage_request').execute();
      await db.schema.createIndex('usage_request').on('usage_log').column('request_id').unique().execute();
    },
  };
}
