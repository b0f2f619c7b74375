// Stored responses (Responses dialect) on SQLite and PostgreSQL: a batch reads back, every read is
// scoped to the account, input items page like the vendor's list, output items are found by id,
// expired rows read as gone and are deleted in batches (with their items).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { responseExpiry, responsesRepository, type StoredResponse } from '../../src/store/repositories/responses.ts';
import { bothDatabases } from '../helpers/databases.ts';

const NOW = 1_780_000_000_000;

function stored(accountId: string, patch: Partial<StoredResponse> = {}): StoredResponse {
  return {
    id: newId('resp'),
    accountId,
    keyId: 'key_1',
    model: 'gpt-4o-mini',
    createdAt: NOW,
    expiresAt: responseExpiry(NOW, 30),
    status: 'completed',
    previousResponseId: null,
    instructions: 'Be brief.',
    input: [
      { id: 'msg_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'héllo 世界' }] },
      { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'fco_1', type: 'function_call_output', call_id: 'call_1', output: '{"temp":21}' },
    ],
    output: [{ id: 'msg_2', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }] }],
    usage: { input_tokens: 30, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 33 },
    settings: { temperature: 0.5, tools: [{ type: 'function', name: 'weather', parameters: { type: 'object' } }], metadata: { ticket: 'T-1' }, text: { format: { type: 'text' } } },
    ...patch,
  };
}

for (const database of bothDatabases('responses')) {
  describe(`stored responses on ${database.name}`, () => {
    let store: Store;
    before(async () => {
      store = await openStore(database.url);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    test('a batch reads back whole, scoped to its account', async () => {
      const repo = responsesRepository(store.db);
      const first = stored('acct_a');
      const second = stored('acct_a', { previousResponseId: first.id, instructions: null, usage: null, keyId: null, status: 'incomplete', settings: null });
      await repo.insertMany([first, second]);
      assert.deepEqual(await repo.get('acct_a', first.id, NOW), first);
      assert.deepEqual(await repo.get('acct_a', second.id, NOW), second);
      assert.equal(await repo.get('acct_b', first.id, NOW), undefined);
      assert.equal(await repo.get('acct_a', 'resp_missing', NOW), undefined);
    });

    test('an id written twice keeps its first row (a retried batch)', async () => {
      const repo = responsesRepository(store.db);
      const response = stored('acct_a');
      await repo.insert(response);
      await repo.insertMany([{ ...response, status: 'failed' }, stored('acct_a')]);
      assert.equal((await repo.get('acct_a', response.id, NOW))?.status, 'completed');
    });

    test('a batch larger than one INSERT is written whole', async () => {
      const repo = responsesRepository(store.db);
      const many = Array.from({ length: 1_201 }, () => stored('acct_many'));
      await repo.insertMany(many);
      for (const response of [many[0]!, many[500]!, many[1_200]!]) assert.equal((await repo.get('acct_many', response.id, NOW))?.id, response.id);
    });

    test('delete is scoped to the account', async () => {
      const repo = responsesRepository(store.db);
      const response = stored('acct_a');
      await repo.insert(response);
      assert.equal(await repo.delete('acct_b', response.id), false);
      assert.equal(await repo.delete('acct_a', response.id), true);
      assert.equal(await repo.delete('acct_a', response.id), false);
      assert.equal(await repo.get('acct_a', response.id, NOW), undefined);
    });

    test('input items page with after, limit and order (newest first by default)', async () => {
      const repo = responsesRepository(store.db);
      const response = stored('acct_a');
      await repo.insert(response);
      const all = await repo.listInputItems('acct_a', response.id, {}, NOW);
      assert.deepEqual(all?.data.map((item) => item.id), ['fco_1', 'fc_1', 'msg_1']);
      assert.deepEqual({ first: all?.firstId, last: all?.lastId, more: all?.hasMore }, { first: 'fco_1', last: 'msg_1', more: false });
      const page = await repo.listInputItems('acct_a', response.id, { order: 'asc', limit: 1, after: 'msg_1' }, NOW);
      assert.deepEqual(page, { data: [response.input[1]], firstId: 'fc_1', lastId: 'fc_1', hasMore: true });
      const last = await repo.listInputItems('acct_a', response.id, { order: 'asc', after: 'fc_1' }, NOW);
      assert.deepEqual(last?.data.map((item) => item.id), ['fco_1']);
      assert.equal(last?.hasMore, false);
      const unknownCursor = await repo.listInputItems('acct_a', response.id, { after: 'msg_nope' }, NOW);
      assert.deepEqual(unknownCursor, { data: [], firstId: null, lastId: null, hasMore: false });
      assert.equal(await repo.listInputItems('acct_b', response.id, {}, NOW), undefined);
    });

    test('output items are found by id: scoped to the account, live rows only, the newest holder of a reused id; one read per 1,000 ids', async () => {
      const repo = responsesRepository(store.db);
      const older = stored('acct_items', { createdAt: NOW - 1_000, output: [{ id: 'msg_vendor1', type: 'message' }, { id: 'fc_call_0', type: 'function_call' }, { id: 'fc_call_0', type: 'function_call' }] });
      const newer = stored('acct_items', { output: [{ id: 'fc_call_0', type: 'function_call' }, { type: 'message' }] });
      // read an hour on: this one expired by then (still live for the sweep test below)
      const LATER = NOW + 3_600_000;
      const expired = stored('acct_items', { expiresAt: NOW + 1, output: [{ id: 'rs_old', type: 'reasoning' }] });
      const many = stored('acct_items', { output: Array.from({ length: 2_500 }, (_, i) => ({ id: `fc_${i}`, type: 'function_call' })) });
      await repo.insertMany([older, newer, expired, many]);
      await repo.insertMany([older]);
      const owners = await repo.itemOwners('acct_items', ['msg_vendor1', 'fc_call_0', 'rs_old', 'fc_nothing', 'msg_vendor1'], LATER);
      assert.deepEqual(Object.fromEntries(owners), { msg_vendor1: older.id, fc_call_0: newer.id });
      assert.equal((await repo.itemOwners('acct_items', ['rs_old'], NOW)).get('rs_old'), expired.id);
      assert.equal((await repo.itemOwners('acct_other', ['msg_vendor1'], NOW)).size, 0);
      const ids = Array.from({ length: 2_500 }, (_, i) => `fc_${i}`);
      const found = await repo.itemOwners('acct_items', ids, LATER);
      assert.equal(found.size, 2_500);
      assert.ok([...found.values()].every((id) => id === many.id));
      assert.equal(await repo.delete('acct_items', many.id), true);
      const left = await store.db.selectFrom('response_items').select('item_id').where('response_id', '=', many.id).execute();
      assert.equal(left.length, 0, 'deleted with its response');
    });

    test('expired rows read as gone and are deleted in batches', async () => {
      const repo = responsesRepository(store.db);
      const expired = Array.from({ length: 7 }, (_, i) => stored('acct_old', { createdAt: NOW - 40 * 86_400_000, expiresAt: NOW - i }));
      const live = stored('acct_old');
      await repo.insertMany([...expired, live]);
      assert.equal(await repo.get('acct_old', expired[0]!.id, NOW), undefined);
      assert.equal(await repo.listInputItems('acct_old', expired[0]!.id, {}, NOW), undefined);
      const before = await store.db.selectFrom('responses').select('id').where('account_id', '=', 'acct_old').execute();
      assert.equal(before.length, 8);
      assert.equal(await repo.deleteExpired(NOW, 3), 7);
      const rest = await store.db.selectFrom('responses').select('id').where('account_id', '=', 'acct_old').execute();
      assert.deepEqual(rest.map((row) => row.id), [live.id]);
      const items = await store.db.selectFrom('response_items').select('response_id').where('account_id', '=', 'acct_old').execute();
      assert.deepEqual(items.map((row) => row.response_id), [live.id], 'the expired rows\' items went with them');
      assert.equal(await repo.deleteExpired(NOW, 3), 0);
    });

    test('migration 009 indexes the output items of responses kept before it', async () => {
      const repo = responsesRepository(store.db);
      const before = stored('acct_009', { output: [{ id: 'msg_kept_before', type: 'message' }, { id: 'fc_kept_before', type: 'function_call' }] });
      await repo.insert(before);
      // the database as migration 008 left it: no index, no settings column
      await store.db.schema.dropTable('response_items').execute();
      await store.db.schema.alterTable('responses').dropColumn('settings_json').execute();
      await sql`delete from kysely_migration where name > '008-responses'`.execute(store.db);
      await store.close();
      store = await openStore(database.url);
      const again = responsesRepository(store.db);
      const owners = await again.itemOwners('acct_009', ['msg_kept_before', 'fc_kept_before'], NOW);
      assert.deepEqual(Object.fromEntries(owners), { msg_kept_before: before.id, fc_kept_before: before.id });
      assert.equal((await again.get('acct_009', before.id, NOW))?.settings, null, 'read with the defaults');
    });
  });
}
