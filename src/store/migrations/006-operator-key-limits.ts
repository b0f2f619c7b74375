import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * A key's limits (and its model allowlist) come from two hands: the operator's (the admin API) and the customer's own
 * (the console). The existing columns stay the operator's — every limit set before this
 * migration counts as imposed, which no customer can lift — and the customer's own go beside
 * them. The request path applies the tighter of the two.
 */
export function operatorKeyLimitsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('api_keys').addColumn('customer_disabled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('api_keys').addColumn('customer_expires_at', 'bigint').execute();
      await db.schema.alterTable('api_keys').addColumn('customer_rpm', 'integer').execute();
      await db.schema.alterTable('api_keys').addColumn('customer_tpm', 'integer').execute();
      await db.schema.alterTable('api_keys').addColumn('customer_max_spend_nano', 'bigint').execute();
      // JSON string[]: the models the customer allows the key, within the operator's `models`
      await db.schema.alterTable('api_keys').addColumn('customer_models', 'text').execute();
    },
  };
}
