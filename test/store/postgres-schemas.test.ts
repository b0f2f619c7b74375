// PostgreSQL schemas isolate gateways that share one database (`?schema=` on DATABASE_URL):
// each schema gets its own tables and migration bookkeeping, whatever the other schemas hold.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { accountsRepository } from '../../src/store/repositories/accounts.ts';
import { PG_URL, postgresDatabase, type TestDatabase } from '../helpers/databases.ts';

const databases: TestDatabase[] = [];
const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close();
  for (const database of databases) await database.drop();
});

async function open(): Promise<Store> {
  const database = postgresDatabase('schemas');
  databases.push(database);
  const store = await openStore(database.url);
  stores.push(store);
  return store;
}

test('a new schema migrates although another schema of the database already has the migration tables', async () => {
  const first = await open();
  const second = await open(); // Kysely must not mistake the first schema's kysely_migration for this one's
  const account = await accountsRepository(second.db).insert({ id: newId('acct'), name: 'in the second schema', email: null });
  assert.equal(await accountsRepository(first.db).get(account.id), undefined, 'schemas do not share rows');
  assert.equal((await accountsRepository(second.db).get(account.id))?.name, 'in the second schema');
  const third = await open();
  assert.deepEqual(await accountsRepository(third.db).list({ limit: 10 }), []);
});

test('a schema migrates while another session keeps reshaping another schema', async () => {
  // Kysely's own introspector read every schema's columns and failed ("column … does not exist")
  // when one was dropped during its query; the store's reads its own schema only.
  const busy = postgresDatabase('schemas_busy');
  databases.push(busy);
  const schema = new URL(busy.url).searchParams.get('schema')!;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`create schema "${schema}"; create table "${schema}".reshaped (id serial primary key)`);
  let reshaping = true;
  const reshapes = (async () => {
    for (let i = 0; reshaping; i++) {
      await client.query(`alter table "${schema}".reshaped add column c${i} int`);
      await client.query(`alter table "${schema}".reshaped drop column c${i}`);
    }
  })();
  try {
    for (let i = 0; i < 6; i++) {
      const store = await open();
      const tables = await store.db.introspection.getTables();
      assert.ok(tables.some((table) => table.name === 'ledger'));
      assert.ok(!tables.some((table) => table.name === 'reshaped'), 'only the store\'s own schema is read');
    }
  } finally {
    reshaping = false;
    await reshapes;
    await client.end();
  }
});
