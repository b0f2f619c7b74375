import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { openSqliteFile, toSqlite } from './sqlite-file.ts';

/**
 * Kysely's SqliteDialect speaks the better-sqlite3 interface; this bridges Node's built-in
 * `node:sqlite` to it, so the embedded database needs no native addon to compile.
 */
export function nodeSqliteDialect(path: string): SqliteDialect {
  return new SqliteDialect({ database: adapt(openSqliteFile(path)) });
}

/** Prepared statements kept for reuse: the same few statements run on every sync cycle. */
const STATEMENT_CACHE = 256;

function adapt(database: DatabaseSync): SqliteDatabase {
  // Kysely prepares before every execution; preparing is most of the cost of a small statement.
  // Statements run one at a time (node:sqlite is synchronous), so one prepared copy per SQL text
  // suffices — the gateway never streams query results, which would need a statement each.
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare: (sql) => {
      let statement = cache.get(sql);
      if (!statement) {
        statement = adaptStatement(database.prepare(sql));
        if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

function adaptStatement(statement: StatementSync): SqliteStatement {
  return {
    // a statement that yields columns is a reader (SELECT, or anything with RETURNING)
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...toSqlite(parameters)),
    run: (parameters) => statement.run(...toSqlite(parameters)),
    iterate: (parameters) => statement.iterate(...toSqlite(parameters)),
  };
}
