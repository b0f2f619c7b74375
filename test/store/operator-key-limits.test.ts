// Migration 006 keeps the customer's own key limits beside the operator's, on SQLite and on
// PostgreSQL; two instances on one database: limits set through one reach the other's key store
// as the tighter of the two, and /v1 on the other instance applies them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bothDatabases, type TestDatabase } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/** Resolves once `check` holds, looking again at every state-sync poll (50 ms in tests). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(check(), what);
}

for (const database of bothDatabases('keylimits')) {
  describe(`operator and customer key limits on ${database.name}, two instances`, () => {
    let a: TestGateway;
    let b: TestGateway;
    const db: TestDatabase = database;
    before(async () => {
      a = await startTestGateway({ databaseUrl: db.url });
      b = await startTestGateway({ databaseUrl: db.url, simulator: false });
    });
    after(async () => {
      await b?.close();
      await a?.close();
      await db.drop();
    });

    test('both sets are stored apart and the tighter applies on the other instance', async () => {
      const customer = await a.customer(1);
      const imposed = await a.admin('PATCH', `/admin/keys/${customer.keyId}`, { disabled: true, max_spend_usd: 0.01, rpm: 60, models: ['gpt-4o-mini', 'gpt-4o'] });
      assert.equal(imposed.status, 200);
      // what the console writes for the customer, on the other instance
      const own = await b.gateway.repos.apiKeys.update(customer.keyId, { customer: { disabled: false, maxSpendNano: 5_000_000, rpm: null, tpm: 500, models: ['gpt-4o', 'gpt-5'] } });
      assert.ok(own);
      assert.deepEqual(own.operator, { disabled: true, expiresAt: null, rpm: 60, tpm: null, maxSpendNano: 10_000_000, models: ['gpt-4o-mini', 'gpt-4o'], budgetNano: null, budgetPeriod: null });
      assert.deepEqual(own.customer, { disabled: false, expiresAt: null, rpm: null, tpm: 500, maxSpendNano: 5_000_000, models: ['gpt-4o', 'gpt-5'], budgetNano: null, budgetPeriod: null });

      await eventually(() => a.gateway.keys.get(customer.keyId)?.customer.tpm === 500, 'the customer’s limits reached the first instance');
      const effective = a.gateway.keys.get(customer.keyId)!;
      assert.deepEqual(
        { disabled: effective.disabled, maxSpendNano: effective.maxSpendNano, rpm: effective.rpm, tpm: effective.tpm, models: effective.models },
        { disabled: true, maxSpendNano: 5_000_000, rpm: 60, tpm: 500, models: ['gpt-4o'] },
      );
      const refused = await fetch(`${a.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(refused.status, 401, 'disabled by the operator, whatever the customer set');
    });
  });
}
