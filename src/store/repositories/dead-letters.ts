import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface DeadLetter {
  table: 'usage_log';
  rowKey: string;
  error: string;
  /** the row's columns as JSON text */
  rowJson: string;
}

export function deadLettersRepository(db: Kysely<Database>) {
  return {
    /** false when the row has a letter already (its batch was set aside once, then retried whole) */
    async insert(letter: DeadLetter): Promise<boolean> {
      const inserted = await db
        .insertInto('dead_letters')
        .values({ table_name: letter.table, row_key: letter.rowKey, error: letter.error, row_json: letter.rowJson, created_at: Date.now() })
        .onConflict((oc) => oc.columns(['table_name', 'row_key']).doNothing())
        .returning('id')
        .execute();
      return inserted.length > 0;
    },

    async count(): Promise<number> {
      const row = await db.selectFrom('dead_letters').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type DeadLettersRepository = ReturnType<typeof deadLettersRepository>;
