import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { sql } from 'kysely';

/**
 * Media the gateway serves itself (stored images and videos behind signed links), video jobs
 * (which outlive the request that submitted them and the process that accepted them), and the
 * secrets every instance shares (the link-signing key). Same DDL on SQLite and PostgreSQL.
 */
export function mediaMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('gateway_secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('media_objects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('storage_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('media_objects_expiry').on('media_objects').columns(['expires_at']).execute();

      await db.schema
        .createTable('video_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text')
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('provider_id', 'text', (c) => c.notNull())
        .addColumn('upstream_model', 'text', (c) => c.notNull())
        .addColumn('upstream_id', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('seconds_requested', 'integer', (c) => c.notNull())
        .addColumn('size', 'text')
        .addColumn('surface', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('hold_nano', 'bigint', (c) => c.notNull())
        .addColumn('cost_nano', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('seconds_billed', sql`double precision`)
        .addColumn('media_id', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('deadline_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('completed_at', 'bigint')
        .execute();
      await db.schema.createIndex('video_jobs_status').on('video_jobs').columns(['status', 'lease_expires_at']).execute();
      await db.schema.createIndex('video_jobs_account').on('video_jobs').columns(['account_id', 'created_at']).execute();
    },
  };
}
