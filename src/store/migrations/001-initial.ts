import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { sql } from 'kysely';
import { autoIncrementId, type DialectName } from '../dialect-name.ts';

export function initialMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('meta')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'bigint', (c) => c.notNull())
        .execute();
      await db.insertInto('meta' as never).values({ name: 'seq', value: 0 } as never).execute();

      await db.schema
        .createTable('providers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('base_url', 'text', (c) => c.notNull())
        .addColumn('api_key', 'text', (c) => c.notNull())
        .addColumn('models', 'text', (c) => c.notNull())
        .addColumn('model_map', 'text', (c) => c.notNull())
        .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('model_overrides')
        .addColumn('model', 'text', (c) => c.primaryKey())
        .addColumn('pricing', 'text')
        .addColumn('capabilities', 'text')
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('balance_nano', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text')
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_hint', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('models', 'text')
        .addColumn('rpm', 'integer')
        .addColumn('tpm', 'integer')
        .addColumn('max_spend_nano', 'bigint')
        .addColumn('spent_nano', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('last_used_at', 'bigint')
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('ledger')
        .addColumn('id', autoIncrementId(dialect), (c) => autoIncrementPk(dialect, c))
        .addColumn('entry_key', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('amount_nano', 'bigint', (c) => c.notNull())
        .addColumn('note', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ledger_account').on('ledger').columns(['account_id', 'id']).execute();

      await db.schema
        .createTable('usage_log')
        .addColumn('id', autoIncrementId(dialect), (c) => autoIncrementPk(dialect, c))
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('endpoint', 'text', (c) => c.notNull())
        .addColumn('provider_id', 'text')
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('prompt_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cached_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('units', sql`double precision`, (c) => c.notNull().defaultTo(0))
        .addColumn('cost_nano', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('latency_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('estimated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error_type', 'text')
        .addColumn('session_id', 'text')
        .execute();
      await db.schema.createIndex('usage_account').on('usage_log').columns(['account_id', 'id']).execute();
      await db.schema.createIndex('usage_key').on('usage_log').columns(['key_id', 'id']).execute();
      await db.schema.createIndex('usage_model').on('usage_log').columns(['model', 'id']).execute();
    },
  };
}

// Kysely's column builder type is not exported in a convenient form; this keeps the call sites readable.
type ColumnBuilder = Parameters<Parameters<ReturnType<Kysely<unknown>['schema']['createTable']>['addColumn']>[2] & {}>[0];
function autoIncrementPk(dialect: DialectName, column: ColumnBuilder): ColumnBuilder {
  return dialect === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement();
}
