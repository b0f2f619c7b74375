import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { autoIncrementId, type DialectName } from '../dialect-name.ts';

/**
 * Rows the write-behind flush could not write, kept for an operator instead of blocking every
 * later write: a usage row the database refused on its own (the flush isolates it from its
 * batch), with the database's error and the row as JSON. Journal entries never land here: they
 * are written with a sanitised note, or kept in memory and retried (flush-isolation.ts).
 */
export function deadLettersMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('dead_letters')
        .addColumn('id', autoIncrementId(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('table_name', 'text', (c) => c.notNull())
        .addColumn('row_key', 'text', (c) => c.notNull())
        .addColumn('error', 'text', (c) => c.notNull())
        .addColumn('row_json', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      // one letter per row: a batch retried after a later failure sets the same row aside again
      await db.schema.createIndex('dead_letters_row').on('dead_letters').columns(['table_name', 'row_key']).unique().execute();
      await db.schema.createIndex('dead_letters_created').on('dead_letters').column('created_at').execute();
    },
  };
}
