import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Periodic budgets (contract §4) on keys and accounts, and what they are spent against: each row
 * keeps its charges per UTC day, ISO week and calendar month (the period's start and its sum),
 * written by the flush in the same transaction as the charges, so every instance reads the same
 * spend and a restart loses none. A start older than the current period means nothing spent yet.
 */
export function budgetsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['accounts', 'api_keys']) {
        await db.schema.alterTable(table).addColumn('budget_nano', 'bigint').execute();
        await db.schema.alterTable(table).addColumn('budget_period', 'text').execute();
        for (const kind of ['day', 'week', 'month']) {
          await db.schema.alterTable(table).addColumn(`spent_${kind}_start`, 'bigint', (c) => c.notNull().defaultTo(0)).execute();
          await db.schema.alterTable(table).addColumn(`spent_${kind}_nano`, 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        }
      }
      // the customer's own budget on a key (the columns above are the operator's)
      await db.schema.alterTable('api_keys').addColumn('customer_budget_nano', 'bigint').execute();
      await db.schema.alterTable('api_keys').addColumn('customer_budget_period', 'text').execute();
    },
  };
}
