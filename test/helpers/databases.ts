// The two databases the store suites run against: SQLite in a temporary file and PostgreSQL in a
// schema of its own (dropped afterwards), so suites and parallel runs never see each other's rows.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** PostgreSQL of the test environment (trust auth); override with MODELGATE_TEST_PG. */
export const PG_URL = process.env.MODELGATE_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  /** "sqlite" or "postgres" */
  name: 'sqlite' | 'postgres';
  /** a DATABASE_URL for this database; every call of a database returns the same one */
  url: string;
  /** removes the file or drops the schema */
  drop(): Promise<void>;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function sqliteDatabase(prefix = 'store'): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), `modelgate-${prefix}-`));
  return {
    name: 'sqlite',
    url: `sqlite:${join(dir, 'test.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresDatabase(prefix = 'store'): TestDatabase {
  const schema = uniqueName(`mg_${prefix}`).toLowerCase();
  return {
    name: 'postgres',
    url: `${PG_URL}?schema=${schema}`,
    async drop() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** One fresh database of each kind. */
export function bothDatabases(prefix = 'store'): TestDatabase[] {
  return [sqliteDatabase(prefix), postgresDatabase(prefix)];
}
