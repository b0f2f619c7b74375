// Repositories and the change counter, on SQLite and on PostgreSQL: what is written reads back,
// every write takes a strictly larger seq, and changedSince(seq) is what other instances poll.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { hashApiKey, keyHint } from '../../src/auth/key-hash.ts';
import { newApiKey, newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { accountsRepository } from '../../src/store/repositories/accounts.ts';
import { apiKeysRepository, type ApiKeyInput } from '../../src/store/repositories/api-keys.ts';
import { modelOverridesRepository } from '../../src/store/repositories/model-overrides.ts';
import { ledgerRepository, type WriteBatch } from '../../src/store/repositories/ledger.ts';
import { providersRepository, type ProviderInput } from '../../src/store/repositories/providers.ts';
import { StateSync, type SyncListener } from '../../src/store/state-sync.ts';
import { bothDatabases } from '../helpers/databases.ts';

function providerInput(name: string, patch: Partial<ProviderInput> = {}): ProviderInput {
  return {
    id: newId('prov'),
    name,
    type: 'openai',
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: 'sk-upstream',
    models: ['gpt-4o-mini', 'gpt-4o'],
    modelMap: { 'gpt-4o': 'gpt-4o-2024' },
    priority: 2,
    weight: 3,
    enabled: true,
    settings: { first_byte_timeout_ms: 1234 },
    ...patch,
  };
}

function keyInput(accountId: string, patch: Partial<ApiKeyInput> = {}): ApiKeyInput {
  const secret = newApiKey();
  return {
    id: newId('key'),
    accountId,
    name: 'k',
    keyHash: hashApiKey(secret),
    keyHint: keyHint(secret),
    expiresAt: null,
    models: null,
    rpm: null,
    tpm: null,
    maxSpendNano: null,
    ...patch,
  };
}

async function currentSeq(store: Store): Promise<number> {
  const row = await store.db.selectFrom('meta').select('value').where('name', '=', 'seq').executeTakeFirstOrThrow();
  return Number(row.value);
}

for (const database of bothDatabases('repos')) {
  describe(`repositories on ${database.name}`, () => {
    let store: Store;
    before(async () => {
      store = await openStore(database.url);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    test('migrations apply once: opening the database again changes nothing', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'before reopen', email: null });
      const seq = await currentSeq(store);
      for (let i = 0; i < 2; i++) {
        const again = await openStore(database.url);
        try {
          const migrations = (await again.db.selectFrom('kysely_migration' as never).select('name' as never).execute()) as Array<{ name: string }>;
          assert.deepEqual(migrations.map((m) => m.name), ['001-initial', '002-media', '003-console', '004-usage-unique', '005-dead-letters', '006-operator-key-limits', '007-budgets', '008-responses', '009-response-items']);
          const metaRows = await again.db.selectFrom('meta').selectAll().execute();
          assert.equal(metaRows.length, 1, 'the counter row is not inserted twice');
          assert.equal(await currentSeq(again), seq);
          assert.equal((await accountsRepository(again.db).get(account.id))?.name, 'before reopen');
        } finally {
          await again.close();
        }
      }
    });

    test('providers: insert, update, soft delete, each with a larger seq', async () => {
      const repo = providersRepository(store.db);
      const created = await repo.insert(providerInput('p-one'));
      assert.deepEqual(
        { models: created.models, modelMap: created.modelMap, priority: created.priority, weight: created.weight, enabled: created.enabled, settings: created.settings, deleted: created.deleted },
        { models: ['gpt-4o-mini', 'gpt-4o'], modelMap: { 'gpt-4o': 'gpt-4o-2024' }, priority: 2, weight: 3, enabled: true, settings: { first_byte_timeout_ms: 1234 }, deleted: false },
      );
      const updated = await repo.update(created.id, { enabled: false, weight: 7, models: ['gpt-4o'] });
      assert.ok(updated);
      assert.ok(updated.seq > created.seq);
      assert.equal(updated.enabled, false);
      assert.equal(updated.weight, 7);
      assert.deepEqual(updated.models, ['gpt-4o']);
      assert.equal(updated.name, 'p-one', 'fields not in the patch are kept');
      assert.equal((await repo.findByName('p-one'))?.id, created.id);

      assert.equal(await repo.remove(created.id), true);
      assert.equal(await repo.remove(created.id), false, 'removing twice is a no-op');
      assert.equal(await repo.get(created.id), undefined);
      assert.equal(await repo.update(created.id, { weight: 1 }), undefined, 'a deleted provider cannot be edited');
      assert.ok(!(await repo.list()).some((p) => p.id === created.id));
      const changes = await repo.changedSince(updated.seq);
      const removal = changes.find((p) => p.id === created.id);
      assert.ok(removal, 'the removal is a change other instances see');
      assert.equal(removal.deleted, true);
      assert.ok(removal.seq > updated.seq);
      // the name is free again
      const reused = await repo.insert(providerInput('p-one'));
      assert.notEqual(reused.id, created.id);
    });

    test('accounts: insert, update, list with search and paging', async () => {
      const repo = accountsRepository(store.db);
      const tag = newId('tag');
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await repo.insert({ id: newId('acct'), name: `${tag} customer ${i}`, email: i === 0 ? `ops+${tag}@acme.test` : null }));
      assert.equal(created[0]!.balanceNano, 0);
      assert.equal(created[0]!.disabled, false);
      const disabled = await repo.update(created[1]!.id, { disabled: true, email: 'x@y.test' });
      assert.equal(disabled?.disabled, true);
      assert.equal(disabled?.email, 'x@y.test');
      assert.ok(disabled!.seq > created[4]!.seq);
      assert.equal(await repo.update('acct_missing', { name: 'x' }), undefined);

      const found = await repo.list({ limit: 100, search: tag });
      assert.equal(found.length, 5);
      assert.deepEqual(
        found.map((a) => a.id),
        [...created].sort((a, b) => b.createdAt - a.createdAt || (b.id < a.id ? -1 : 1)).map((a) => a.id),
        'newest first',
      );
      const page1 = await repo.list({ limit: 2, search: tag });
      const page2 = await repo.list({ limit: 2, search: tag, before: page1.at(-1)!.id });
      const page3 = await repo.list({ limit: 2, search: tag, before: page2.at(-1)!.id });
      assert.deepEqual([...page1, ...page2, ...page3].map((a) => a.id), found.map((a) => a.id), 'pages cover the list once, in order');
      assert.equal((await repo.list({ limit: 10, search: `ops+${tag}` })).length, 1, 'search matches the email');
      // "_" and "%" in a search are literal characters, not LIKE wildcards
      const literal = await repo.insert({ id: newId('acct'), name: `${tag}_x 100%`, email: null });
      await repo.insert({ id: newId('acct'), name: `${tag}yx 1000`, email: null });
      assert.deepEqual((await repo.list({ limit: 10, search: `${tag}_x` })).map((a) => a.id), [literal.id]);
      assert.deepEqual((await repo.list({ limit: 10, search: `${tag}_x 100%` })).map((a) => a.id), [literal.id]);
      assert.deepEqual((await repo.list({ limit: 10, search: `${tag}yx 100%` })).map((a) => a.id), []);
    });

    test('api keys: insert, update, revoke; revoked keys stay visible to pollers only', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'key owner', email: null });
      const repo = apiKeysRepository(store.db);
      const key = await repo.insert(keyInput(account.id, { models: ['gpt-4o-mini'], rpm: 60, maxSpendNano: 5_000, expiresAt: 4_102_444_800_000 }));
      assert.deepEqual(
        { models: key.models, rpm: key.rpm, tpm: key.tpm, max: key.maxSpendNano, spent: key.spentNano, exp: key.expiresAt, disabled: key.disabled, revoked: key.revoked },
        { models: ['gpt-4o-mini'], rpm: 60, tpm: null, max: 5_000, spent: 0, exp: 4_102_444_800_000, disabled: false, revoked: false },
      );
      const patched = await repo.update(key.id, { models: null, tpm: 1000, disabled: true });
      assert.equal(patched?.models, null);
      assert.equal(patched?.tpm, 1000);
      assert.equal(patched?.rpm, 60);
      assert.equal(patched?.disabled, true);
      assert.ok(patched!.seq > key.seq);
      const other = await repo.insert(keyInput(account.id));
      assert.deepEqual((await repo.listByAccount(account.id)).map((k) => k.id).sort(), [key.id, other.id].sort());

      const revoked = await repo.update(key.id, { revoked: true, disabled: true });
      assert.equal(revoked?.revoked, true);
      assert.equal(await repo.update(key.id, { name: 'again' }), undefined, 'a revoked key cannot be changed');
      assert.deepEqual((await repo.listByAccount(account.id)).map((k) => k.id), [other.id]);
      const seen = (await repo.changedSince(patched!.seq)).find((k) => k.id === key.id);
      assert.equal(seen?.revoked, true);
      await assert.rejects(repo.insert({ ...keyInput(account.id), keyHash: other.keyHash }), 'key hashes are unique');
    });

    test('model overrides: upsert inserts then replaces, with a larger seq each time', async () => {
      const repo = modelOverridesRepository(store.db);
      const before = await currentSeq(store);
      await repo.upsert('gpt-4o-mini', { input_per_mtok: 0.2 }, null);
      await repo.upsert('gpt-4o-mini', { input_per_mtok: 0.25, output_per_mtok: 1 }, { dimensions: 3 });
      const changes = (await repo.changedSince(before)).filter((m) => m.model === 'gpt-4o-mini');
      assert.equal(changes.length, 1, 'one row per model');
      assert.deepEqual(changes[0]!.pricing, { input_per_mtok: 0.25, output_per_mtok: 1 });
      assert.deepEqual(changes[0]!.capabilities, { dimensions: 3 });
      assert.equal(changes[0]!.seq, before + 2);
    });

    test('seq strictly increases across every table, and changedSince(seq) returns exactly the later changes', async () => {
      const start = await currentSeq(store);
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'seq', email: null });
      const provider = await providersRepository(store.db).insert(providerInput(newId('seq')));
      const key = await apiKeysRepository(store.db).insert(keyInput(account.id));
      const account2 = await accountsRepository(store.db).update(account.id, { name: 'seq 2' });
      const provider2 = await providersRepository(store.db).update(provider.id, { priority: 9 });
      const seqs = [account.seq, provider.seq, key.seq, account2!.seq, provider2!.seq];
      assert.deepEqual(seqs, [start + 1, start + 2, start + 3, start + 4, start + 5], 'one global counter, +1 per write');
      assert.equal(await currentSeq(store), start + 5);

      const accounts = await accountsRepository(store.db).changedSince(start + 3);
      assert.deepEqual(accounts.map((a) => [a.id, a.seq]), [[account.id, start + 4]]);
      assert.deepEqual((await providersRepository(store.db).changedSince(start + 4)).map((p) => p.id), [provider.id]);
      assert.deepEqual(await apiKeysRepository(store.db).changedSince(start + 3), []);
      assert.deepEqual(await providersRepository(store.db).changedSince(start + 5), []);
    });

    test('key last-use times go out once per key and batch, the latest use winning', async () => {
      const account = await accountsRepository(store.db).insert({ id: newId('acct'), name: 'busy keys', email: null });
      const keys = apiKeysRepository(store.db);
      const [a, b] = [await keys.insert(keyInput(account.id)), await keys.insert(keyInput(account.id))];
      const batches: WriteBatch[] = [];
      const ledger = ledgerRepository(store.db);
      const quiet: SyncListener = { provider: () => undefined, account: () => undefined, apiKey: () => undefined, modelOverride: () => undefined, flushed: () => undefined };
      const sync = new StateSync(store.db, quiet, pino({ level: 'silent' }), 60_000, {
        flush: (batch) => {
          batches.push(structuredClone(batch));
          return ledger.flush(batch).then(({ written }) => ({ written, deadLettered: [], sanitised: [], stuck: [] }));
        },
        close: async () => undefined,
      });
      for (const at of [5_000, 9_000, 7_000]) sync.touchKey(a.id, at);
      sync.touchKey(b.id, 4_000);
      await sync.now();
      // the next batch starts afresh
      sync.touchKey(a.id, 6_000);
      await sync.now();
      assert.deepEqual(batches.map((batch) => batch.touches), [
        [{ keyId: a.id, lastUsedAt: 9_000 }, { keyId: b.id, lastUsedAt: 4_000 }],
        [{ keyId: a.id, lastUsedAt: 6_000 }],
      ]);
      assert.equal((await keys.get(b.id))?.lastUsedAt, 4_000);
      await sync.stop();
    });

    test('a poller running beside concurrent writers sees every change exactly once', async () => {
      const seen: Array<[string, number]> = [];
      const listener: SyncListener = {
        provider: (r) => seen.push([r.id, r.seq]),
        account: (r) => seen.push([r.id, r.seq]),
        apiKey: (r) => seen.push([r.id, r.seq]),
        modelOverride: (r) => seen.push([r.model, r.seq]),
        flushed: () => undefined,
      };
      const sync = new StateSync(store.db, listener, pino({ level: 'silent' }), 60_000);
      await sync.now(); // catch up with everything written so far
      seen.length = 0;

      const accounts = accountsRepository(store.db);
      const writers = Array.from({ length: 8 }, async (_, w) => {
        const account = await accounts.insert({ id: newId('acct'), name: `writer ${w}`, email: null });
        let last = account.seq;
        for (let i = 0; i < 5; i++) last = (await accounts.update(account.id, { name: `writer ${w} v${i}` }))!.seq;
        return { id: account.id, last };
      });
      let writing = true;
      const finished = Promise.all(writers).finally(() => {
        writing = false;
      });
      let polls = 0;
      while (writing) {
        await sync.now();
        polls++;
      }
      const written = await finished;
      await sync.now();
      assert.ok(polls >= 1);

      const keys = seen.map(([id, seq]) => `${id}@${seq}`);
      assert.equal(new Set(keys).size, keys.length, 'no version is delivered twice');
      const seqs = seen.map(([, seq]) => seq);
      assert.equal(new Set(seqs).size, seqs.length, 'a seq belongs to one change');
      for (const { id, last } of written) {
        const versions = seen.filter(([sid]) => sid === id).map(([, seq]) => seq);
        assert.ok(versions.length >= 1, `${id} was seen`);
        assert.equal(Math.max(...versions), last, `${id}: the final version was seen`);
        assert.deepEqual(versions, [...versions].sort((a, b) => a - b), 'versions arrive in order');
      }
      await sync.stop();
    });
  });
}
