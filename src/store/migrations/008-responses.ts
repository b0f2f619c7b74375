import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Stored responses of the Responses dialect (`POST /v1/responses` with `store`): what
 * `GET /v1/responses/{id}`, `…/input_items` and `previous_response_id` read back, scoped to the
 * account, whatever vendor answered. Items are JSON text in the Responses wire shape; rows past
 * `expires_at` (the retention setting) are deleted in batches.
 */
export function responsesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('responses')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text')
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('previous_response_id', 'text')
        // JSON: the request's `instructions` (a string or items), or null
        .addColumn('instructions_json', 'text')
        // JSON: the request's input items (a string input stored as one user message item)
        .addColumn('input_json', 'text', (c) => c.notNull())
        // JSON: the response's output items
        .addColumn('output_json', 'text', (c) => c.notNull())
        // JSON: the response's `usage`, or null
        .addColumn('usage_json', 'text')
        .execute();
      await db.schema.createIndex('responses_expires').on('responses').column('expires_at').execute();
      await db.schema.createIndex('responses_account').on('responses').columns(['account_id', 'created_at']).execute();
    },
  };
}
