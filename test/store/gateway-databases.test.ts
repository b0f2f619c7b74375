// The same end-to-end billing scenario on a gateway backed by SQLite and by PostgreSQL:
// requests of every kind, a credit and a correction, an idempotent credit retried concurrently;
// the balance, the journal and the usage rows agree to the nano-dollar.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { bothDatabases } from '../helpers/databases.ts';
import { usageRows, usdToNanoExact } from '../helpers/upstreams.ts';

for (const database of bothDatabases('gw')) {
  describe(`gateway on ${database.name}`, () => {
    let tg: TestGateway;
    before(async () => {
      tg = await startTestGateway({ databaseUrl: database.url });
      assert.equal(tg.gateway.store.dialect, database.name);
    });
    after(async () => {
      await tg.close();
      await database.drop();
    });

    test('requests, a credit and a correction: balance = journal = credits − Σ usage costs', async () => {
      const customer = await tg.customer(2);
      const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
      let expected = 2e9;

      const chat = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `on ${database.name}` }] });
      expected -= chat.usage!.prompt_tokens * 150 + chat.usage!.completion_tokens * 600;

      tg.sim!.enqueue({ kind: 'usage', cachedTokens: 30, promptTokens: 50 });
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'streamed' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
      assert.equal(usage?.prompt_tokens_details?.cached_tokens, 30);
      expected -= 20 * 150 + 30 * 75 + usage!.completion_tokens * 600;

      const embedding = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'embed me' });
      expected -= embedding.usage.prompt_tokens * 20;

      const credit = await tg.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: 0.5, note: 'top-up' });
      assert.equal(credit.status, 200);
      expected += 5e8;
      const correction = await tg.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: -0.1, note: 'correction' });
      assert.equal(correction.status, 200);
      expected -= 1e8;
      assert.equal(usdToNanoExact(correction.body.balance_usd), expected);

      assert.equal(tg.balanceNano(customer.accountId), expected);
      await tg.assertBillingInvariants(customer.accountId);
      const stored = await tg.gateway.repos.accounts.get(customer.accountId);
      assert.equal(stored?.balanceNano, expected);

      const rows = await usageRows(tg, customer.accountId);
      assert.equal(rows.length, 3);
      const journal = await tg.admin('GET', `/admin/accounts/${customer.accountId}/ledger`);
      const kinds = journal.body.data.map((r: { kind: string }) => r.kind);
      assert.deepEqual(kinds, ['correction', 'credit', 'charge', 'charge', 'charge', 'credit']);
      const charges = journal.body.data.filter((r: { kind: string }) => r.kind === 'charge');
      assert.deepEqual(
        charges.map((r: { amount_usd: number }) => -usdToNanoExact(r.amount_usd)).sort(),
        rows.map((r) => usdToNanoExact(r.cost_usd)).sort(),
        'each charge matches its usage row',
      );
    });

    test('the same Idempotency-Key sent concurrently credits once', async () => {
      const customer = await tg.customer(0);
      const headers = { 'idempotency-key': `idem-${database.name}` };
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => tg.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: 3 }, headers)),
      );
      assert.ok(answers.every((a) => a.status === 200));
      await tg.assertBillingInvariants(customer.accountId);
      assert.equal(tg.balanceNano(customer.accountId), 3e9);
      const journal = await tg.admin('GET', `/admin/accounts/${customer.accountId}/ledger`);
      assert.equal(journal.body.data.length, 1);
      // and sequentially, after the first one is durable
      const retry = await tg.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: 3 }, headers);
      assert.equal(usdToNanoExact(retry.body.balance_usd), 3e9);
      await tg.assertBillingInvariants(customer.accountId);
    });
  });
}
