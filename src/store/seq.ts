import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Takes the next value of the global change counter. Called inside the transaction that writes
 * the row, so the counter's row lock orders concurrent writers: a poller that has seen seq N has
 * seen every committed change up to N.
 */
export async function nextSeq(trx: Transaction<Database> | Kysely<Database>): Promise<number> {
  const row = await trx
    .updateTable('meta')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', 'seq')
    .returning('value')
    .executeTakeFirstOrThrow();
  return row.value;
}
