// Migration 004 makes usage_log.request_id unique. Databases written before it may hold several
// rows of one request id (realtime responses shared their session's id): all but the first get
// their row id appended, so the index can be built and no row is lost.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import { openStore } from '../../src/store/database.ts';
import { accountsRepository } from '../../src/store/repositories/accounts.ts';
import { bothDatabases } from '../helpers/databases.ts';

for (const database of bothDatabases('usage_unique')) {
  describe(`usage request ids on ${database.name}`, () => {
    after(() => database.drop());

    test('rows sharing a request id before the migration are kept, made distinct, and the id is unique after', async () => {
      const first = await openStore(database.url);
      const account = await accountsRepository(first.db).insert({ id: newId('acct'), name: 'old', email: null });
      // the database as migration 003 left it: a plain index, and three rows of one realtime session
      await first.db.schema.dropIndex('usage_request').execute();
      await first.db.schema.createIndex('usage_request').on('usage_log').column('request_id').execute();
      const row = (requestId: string) => ({
        request_id: requestId,
        created_at: Date.now(),
        account_id: account.id,
        key_id: 'key_old',
        model: 'gpt-realtime',
        endpoint: '/v1/realtime',
        provider_id: null,
        status: 200,
        prompt_tokens: 1,
        completion_tokens: 1,
        cached_tokens: 0,
        units: 0,
        cost_nano: 10,
        latency_ms: 1,
        estimated: 0,
        error_type: null,
        session_id: 'rtsess_1',
      });
      await first.db.insertInto('usage_log').values([row('req_session'), row('req_session'), row('req_session'), row('req_alone')]).execute();
      // … and without the migrations after it (they run again on reopening)
      await first.db.schema.dropTable('dead_letters').ifExists().execute();
      await first.db.schema.dropTable('response_items').ifExists().execute();
      await first.db.schema.dropTable('responses').ifExists().execute();
      for (const column of ['customer_disabled', 'customer_expires_at', 'customer_rpm', 'customer_tpm', 'customer_max_spend_nano', 'customer_models']) {
        await first.db.schema.alterTable('api_keys').dropColumn(column).execute();
      }
      const budgetColumns = ['budget_nano', 'budget_period', 'spent_day_start', 'spent_day_nano', 'spent_week_start', 'spent_week_nano', 'spent_month_start', 'spent_month_nano'];
      for (const column of [...budgetColumns, 'customer_budget_nano', 'customer_budget_period']) await first.db.schema.alterTable('api_keys').dropColumn(column).execute();
      for (const column of budgetColumns) await first.db.schema.alterTable('accounts').dropColumn(column).execute();
      await sql`delete from kysely_migration where name > '003-console'`.execute(first.db);
      await first.close();

      const reopened = await openStore(database.url);
      try {
        const ids = (await reopened.db.selectFrom('usage_log').select(['id', 'request_id']).orderBy('id').execute()).map((r) => r.request_id);
        assert.equal(ids.length, 4, 'no row lost');
        assert.equal(ids[0], 'req_session', 'the first row keeps its id');
        assert.match(ids[1]!, /^req_session:\d+$/);
        assert.match(ids[2]!, /^req_session:\d+$/);
        assert.equal(ids[3], 'req_alone');
        assert.equal(new Set(ids).size, 4);
        await assert.rejects(reopened.db.insertInto('usage_log').values(row('req_alone')).execute(), 'the request id is unique now');
      } finally {
        await reopened.close();
      }
    });
  });
}
