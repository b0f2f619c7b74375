import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { bind, type FlushConnection, type Run, type Template } from './flush-sql.ts';
import { toSqlite } from './sqlite-file.ts';

/**
 * The flush's statements on a node:sqlite connection of its own (the flush thread), without the
 * query builder. A flush has a fixed set of ~45 statements: each is prepared once and kept.
 */
export function sqliteFlushConnection(database: DatabaseSync): FlushConnection {
  const prepared = new Map<string, { statement: StatementSync; reader: boolean }>();
  const run: Run = async <Row>(template: Template, rows: readonly (readonly unknown[])[]) => {
    let entry = prepared.get(template.sql);
    if (!entry) {
      const statement = database.prepare(template.sql);
      // a statement that yields columns is a reader (SELECT, or anything with RETURNING)
      entry = { statement, reader: statement.columns().length > 0 };
      statement.setReturnArrays(true);
      prepared.set(template.sql, entry);
    }
    const parameters = toSqlite(bind(template, rows));
    if (entry.reader) return entry.statement.all(...parameters) as unknown[] as Row[];
    entry.statement.run(...parameters);
    return [];
  };
  return {
    async transaction(body) {
      database.exec('begin');
      try {
        const result = await body(run);
        database.exec('commit');
        return result;
      } catch (error) {
        // SQLite ends the transaction itself on some errors (SQLITE_FULL, IOERR…): the caller
        // must see the statement's error, not "no transaction is active"
        if (database.isTransaction) database.exec('rollback');
        throw error;
      }
    },
    run,
  };
}
