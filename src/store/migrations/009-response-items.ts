import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Stored responses read back whole (issue 20): `settings_json` keeps the members of the response
 * object that echo the request (tools, text, reasoning, metadata…; JSON, not the input), and
 * `response_items` indexes each response's output items by id, so an `item_reference` finds the
 * response holding the item in one batched read whatever the id looks like — the vendor's own ids
 * on the Responses fast path, function calls named after the upstream's call ids. Rows of 008 are
 * indexed here from their output.
 */
export function responseItemsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('responses').addColumn('settings_json', 'text').execute();
      await db.schema
        .createTable('response_items')
        .addColumn('response_id', 'text', (c) => c.notNull())
        .addColumn('item_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('response_items_pk', ['response_id', 'item_id'])
        .execute();
      await db.schema.createIndex('response_items_lookup').on('response_items').columns(['account_id', 'item_id']).execute();
      await indexExisting(db as unknown as Kysely<Tables>);
    },
  };
}

interface Tables {
  responses: { id: string; account_id: string; output_json: string };
  response_items: { response_id: string; item_id: string; account_id: string };
}

const PAGE = 500;

/** the output items of the rows already stored, a page of responses at a time */
async function indexExisting(db: Kysely<Tables>): Promise<void> {
  for (let after = ''; ; ) {
    const rows = await db.selectFrom('responses').select(['id', 'account_id', 'output_json']).where('id', '>', after).orderBy('id').limit(PAGE).execute();
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    const items = new Map<string, { response_id: string; item_id: string; account_id: string }>();
    for (const row of rows) {
      for (const item of JSON.parse(row.output_json) as Array<{ id?: unknown }>) {
        if (typeof item.id === 'string') items.set(`${row.id}\n${item.id}`, { response_id: row.id, item_id: item.id, account_id: row.account_id });
      }
    }
    const values = [...items.values()];
    for (let at = 0; at < values.length; at += PAGE) {
      await db.insertInto('response_items').values(values.slice(at, at + PAGE)).onConflict((oc) => oc.columns(['response_id', 'item_id']).doNothing()).execute();
    }
  }
}
