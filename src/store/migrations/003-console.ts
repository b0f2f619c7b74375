import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from '../console-schema.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The web console's tables and the usage rollups (back-filled from the usage rows already there). */
export function consoleMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('console_users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('console_users_account').on('console_users').column('account_id').execute();

      await db.schema
        .createTable('console_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        .execute();
      await db.schema.createIndex('console_sessions_user').on('console_sessions').column('user_id').execute();

      await db.schema
        .createTable('console_settings')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('console_invites')
        .addColumn('code', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text')
        .addColumn('note', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('used_by', 'text')
        .addColumn('used_at', 'bigint')
        .execute();

      await db.schema
        .createTable('redemption_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('code', 'text', (c) => c.notNull().unique())
        .addColumn('batch', 'text', (c) => c.notNull())
        .addColumn('amount_nano', 'bigint', (c) => c.notNull())
        .addColumn('note', 'text')
        .addColumn('expires_at', 'bigint')
        .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('redeemed_by', 'text')
        .addColumn('redeemed_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('redemption_codes_created').on('redemption_codes').columns(['created_at', 'id']).execute();
      await db.schema.createIndex('redemption_codes_batch').on('redemption_codes').column('batch').execute();

      for (const table of ['usage_rollup_hour', 'usage_rollup_day']) {
        let create = db.schema
          .createTable(table)
          .addColumn('bucket', 'bigint', (c) => c.notNull())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('model', 'text', (c) => c.notNull())
          .addColumn('provider_id', 'text', (c) => c.notNull())
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('is_error', 'integer', (c) => c.notNull())
          .addColumn('requests', 'bigint', (c) => c.notNull())
          .addColumn('prompt_tokens', 'bigint', (c) => c.notNull())
          .addColumn('completion_tokens', 'bigint', (c) => c.notNull())
          .addColumn('cached_tokens', 'bigint', (c) => c.notNull())
          .addColumn('units', sql`double precision`, (c) => c.notNull())
          .addColumn('cost_nano', 'bigint', (c) => c.notNull())
          .addColumn('latency_ms_sum', 'bigint', (c) => c.notNull());
        for (const column of LATENCY_COLUMNS) create = create.addColumn(column, 'bigint', (c) => c.notNull());
        await create
          .addPrimaryKeyConstraint(`${table}_pk`, ['bucket', 'account_id', 'key_id', 'model', 'provider_id', 'endpoint', 'is_error'])
          .execute();
        await db.schema.createIndex(`${table}_account`).on(table).columns(['account_id', 'bucket']).execute();
        await db.schema.createIndex(`${table}_bucket`).on(table).column('bucket').execute();
        await backfill(db, table, table === 'usage_rollup_hour' ? HOUR_MS : DAY_MS);
      }

      // retention deletes and date filters over every account
      await db.schema.createIndex('usage_created').on('usage_log').column('created_at').execute();
      // the ledger page names the model behind each charge
      await db.schema.createIndex('usage_request').on('usage_log').column('request_id').execute();
    },
  };
}

/** Rebuilds a rollup table from the usage rows (also used by tests to check the incremental path). */
export async function backfill(db: Kysely<unknown>, table: string, width: number): Promise<void> {
  const latency = LATENCY_COLUMNS.map((column, i) => {
    const lower = i === 0 ? null : LATENCY_BOUNDS_MS[i - 1];
    const upper = LATENCY_BOUNDS_MS[i];
    const conditions = [lower === null ? null : sql`latency_ms > ${sql.lit(lower)}`, upper === undefined ? null : sql`latency_ms <= ${sql.lit(upper)}`].filter((c) => c !== null);
    return sql`sum(case when ${sql.join(conditions, sql` and `)} then 1 else 0 end)`;
  });
  await sql`
    insert into ${sql.table(table)} (bucket, account_id, key_id, model, provider_id, endpoint, is_error, requests, prompt_tokens,
      completion_tokens, cached_tokens, units, cost_nano, latency_ms_sum, ${sql.join(LATENCY_COLUMNS.map((c) => sql.ref(c)))})
    select (created_at / ${sql.lit(width)}) * ${sql.lit(width)}, account_id, key_id, model, coalesce(provider_id, ''), endpoint,
      case when status >= 400 then 1 else 0 end, count(*), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens),
      sum(units), sum(cost_nano), sum(latency_ms), ${sql.join(latency)}
    from usage_log
    group by (created_at / ${sql.lit(width)}) * ${sql.lit(width)}, account_id, key_id, model, coalesce(provider_id, ''), endpoint,
      case when status >= 400 then 1 else 0 end
  `.execute(db);
}
