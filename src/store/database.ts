import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { reasonOf, StartupError } from '../core/startup-error.ts';
import type { DialectName } from './dialect-name.ts';
import { initialMigration } from './migrations/001-initial.ts';
import { mediaMigration } from './migrations/002-media.ts';
import { consoleMigration } from './migrations/003-console.ts';
import { usageUniqueMigration } from './migrations/004-usage-unique.ts';
import { deadLettersMigration } from './migrations/005-dead-letters.ts';
import { operatorKeyLimitsMigration } from './migrations/006-operator-key-limits.ts';
import { budgetsMigration } from './migrations/007-budgets.ts';
import { responsesMigration } from './migrations/008-responses.ts';
import { responseItemsMigration } from './migrations/009-response-items.ts';
import type { Database } from './schema.ts';
import { SchemaScopedPostgresDialect } from './schema-introspector.ts';
import { nodeSqliteDialect } from './sqlite-dialect.ts';

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** the PostgreSQL schema named by the URL's `schema` parameter, if any */
  schema?: string;
  /** the file of an embedded database (`:memory:` for an in-memory one) */
  sqlitePath?: string;
  /** human-readable location for the start-up line; never contains a password */
  describe: string;
  close(): Promise<void>;
}

/**
 * Opens `sqlite:<path>` (embedded; `sqlite::memory:` for tests) or `postgres://…`, and brings
 * the schema up to date. A `schema` query parameter on a PostgreSQL URL isolates the tables in
 * that schema (tests use it to run side by side in one database).
 */
export async function openStore(url: string): Promise<Store> {
  const opened = url.startsWith('sqlite:') ? openSqlite(url) : await openPostgres(url);
  const { dialect, db, describe, migrationSchema } = opened;
  const store: Store = { db, dialect, describe, ...('path' in opened && { sqlitePath: opened.path }), close: () => db.destroy() };
  await migrate(store, migrationSchema);
  return store;
}

function openSqlite(url: string) {
  const path = url.slice('sqlite:'.length) || './data/modelgate.db';
  let dialect;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    dialect = nodeSqliteDialect(path);
  } catch (error) {
    throw new StartupError(`modelgate cannot open the SQLite database sqlite:${path} (${reasonOf(error)}): make its directory writable, or set DATABASE_URL=sqlite:<a writable path>.`);
  }
  const db = new Kysely<Database>({ dialect });
  return { dialect: 'sqlite' as const, db, describe: `sqlite:${path}`, migrationSchema: undefined, path };
}

async function openPostgres(url: string) {
  // the driver only when the database is PostgreSQL: an embedded gateway does not load it
  const { default: pg } = await import('pg');
  // int8 (bigint) columns hold money and times; every value we store fits a JS number exactly.
  pg.types.setTypeParser(20, (value) => Number(value));
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got ${url.split(':')[0]}:…)`);
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema && !/^[a-z_][a-z0-9_]*$/i.test(schema)) throw new Error('DATABASE_URL schema parameter must be an identifier');
  const connectionString = parsed.toString();
  const where = `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}${schema ? ` (schema ${schema})` : ''}`;
  // one connection first: a server that is down or a database that is missing stops the start with one line
  const setup = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  setup.on('error', () => undefined);
  try {
    await setup.connect();
  } catch (error) {
    await setup.end().catch(() => undefined);
    const how = 'check that PostgreSQL runs there and the database and user exist, or set DATABASE_URL to one that does (or to sqlite:./data/modelgate.db for the embedded database)';
    throw new StartupError(`modelgate cannot connect to PostgreSQL at postgres://${where} (${reasonOf(error)}): ${how}.`);
  }
  let migrationSchema: string;
  try {
    if (schema) await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    // without a schema parameter, the tables go where the user's search_path puts them
    const current = schema ?? (await setup.query<{ name: string | null }>('select current_schema() as name')).rows[0]?.name;
    if (!current) throw new StartupError(`modelgate has no schema to create its tables in at postgres://${where}: the user's search_path names none that exists; add ?schema=<name> to DATABASE_URL.`);
    migrationSchema = current;
  } finally {
    await setup.end();
  }
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  // A connection the server ends (a restart, a failover, pg_terminate_backend) emits 'error':
  // unheard, that ends the process. Idle, the pool drops it; in use, its query fails (and the
  // write-behind retries), and the pool drops it when it is released. The next query reconnects.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool }, migrationSchema) });
  return { dialect: 'postgres' as const, db, describe: `postgres://${where}`, migrationSchema };
}

async function migrate(store: Store, migrationSchema: string | undefined): Promise<void> {
  const migrations: Record<string, Migration> = {
    '001-initial': initialMigration(store.dialect),
    '002-media': mediaMigration(),
    '003-console': consoleMigration(),
    '004-usage-unique': usageUniqueMigration(),
    '005-dead-letters': deadLettersMigration(store.dialect),
    '006-operator-key-limits': operatorKeyLimitsMigration(),
    '007-budgets': budgetsMigration(),
    '008-responses': responsesMigration(),
    '009-response-items': responseItemsMigration(),
  };
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // the migrator's bookkeeping tables live in the store's schema, beside the tables they describe
  const migrator = new Migrator({ db: store.db, provider, ...(migrationSchema && { migrationTableSchema: migrationSchema }) });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
