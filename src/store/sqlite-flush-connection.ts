import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { bind, rowsWithKeys, type FlushConnection, type InsertFresh, type Run, type Template } from './flush-sql.ts';
import { toSqlite } from './sqlite-file.ts';

/**
 * The flush's statements on a node:sqlite connection of its own (the flush thread), without the
 * query builder. A flush has a fixed set of ~50 statements: each is prepared once and kept.
 */
export function sqliteFlushConnection(database: DatabaseSync): FlushConnection {
  const prepared = new Map<string, { statement: StatementSync; reader: boolean }>();
  const statementOf = (template: Template) => {
    let entry = prepared.get(template.sql);
    if (!entry) {
      const statement = database.prepare(template.sql);
      // a statement that yields columns is a reader (SELECT, or anything with RETURNING)
      entry = { statement, reader: statement.columns().length > 0 };
      statement.setReturnArrays(true);
      prepared.set(template.sql, entry);
    }
    return entry;
  };
  const run: Run = async <Row>(template: Template, rows: readonly (readonly unknown[])[]) => {
    const { statement, reader } = statementOf(template);
    const parameters = toSqlite(bind(template, rows));
    if (reader) return statement.all(...parameters) as unknown[] as Row[];
    statement.run(...parameters);
    return [];
  };
  // without RETURNING; when some rows were already there, the ones written are those above the
  // largest id before the statement (the flush holds the write lock, and a new row's id is above
  // every id in the table; a row that conflicts may spend one, so the count does not give the range)
  const insertFresh: InsertFresh = async (insert, rows) => {
    const before = (await run<[number | null]>(insert.lastId, [[]]))[0]?.[0] ?? 0;
    const template = insert.quiet[rows.length]!;
    const { changes } = statementOf(template).statement.run(...toSqlite(bind(template, rows)));
    if (changes === rows.length) return rows;
    if (changes === 0) return [];
    const keys = (await run<[unknown]>(insert.keysSince, [[before]])).map(([key]) => key);
    return rowsWithKeys(rows, insert.key, keys);
  };
  return {
    async transaction(body) {
      // the write lock from the start: a transaction that reads first (FreshInsert.lastId) and
      // writes after another connection committed is refused at once (SQLITE_BUSY_SNAPSHOT), not
      // made to wait; the main thread's connection writes to the same file
      database.exec('begin immediate');
      try {
        const result = await body(run, insertFresh);
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
