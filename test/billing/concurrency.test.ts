// Parallel requests against a balance that covers only some of them: reservations keep the
// account from being overdrawn, every success is charged once, every refusal costs nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chargeCount, usageRows, usdToNanoExact } from '../helpers/upstreams.ts';

let tg: TestGateway;
before(async () => {
  // a little upstream latency so that the requests overlap inside the gateway
  tg = await startTestGateway({ simulator: { latencyMs: 20 } });
});
after(async () => {
  await tg.close();
});

const MAX_TOKENS = 50;
const PARALLEL = 40;

async function runBurst(creditUsd: number, stream: boolean) {
  const customer = await tg.customer(creditUsd);
  const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
  const results = await Promise.allSettled(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const messages = [{ role: 'user' as const, content: `burst request ${i}` }];
      if (!stream) return client.chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: MAX_TOKENS });
      const s = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: MAX_TOKENS, stream: true });
      for await (const _ of s) {
        // drain
      }
      return undefined;
    }),
  );
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof OpenAI.APIError && r.reason.status === 402);
  for (const r of refused) {
    const error = (r as PromiseRejectedResult).reason as InstanceType<typeof OpenAI.APIError>;
    assert.equal(error.code, 'insufficient_quota');
    assert.equal((error.error as { type?: string }).type, 'insufficient_quota');
  }
  const other = results.filter((r) => r.status === 'rejected' && !(r.reason instanceof OpenAI.APIError && r.reason.status === 402));
  assert.deepEqual(other, [], 'every request either succeeds or gets 402');
  return { customer, ok, refused: refused.length };
}

for (const stream of [false, true]) {
  test(`${PARALLEL} parallel ${stream ? 'streamed' : 'plain'} requests on a balance that covers about 10: some succeed, the rest get 402, nothing is overdrawn`, async () => {
    // one request's upper bound: ~12 prompt tokens × 150 + 50 × 600 ≈ 31 800 nano; credit ≈ 10 of them
    const creditUsd = 0.00032;
    const { customer, ok, refused } = await runBurst(creditUsd, stream);
    assert.equal(ok + refused, PARALLEL);
    assert.ok(ok >= 1, `some requests succeed (got ${ok})`);
    assert.ok(refused >= 1, `some requests are refused (got ${refused})`);

    const rows = await usageRows(tg, customer.accountId);
    const charged = rows.filter((r) => r.status === 200);
    assert.equal(charged.length, ok, 'one usage row with status 200 per success');
    assert.equal(rows.filter((r) => r.status === 402).length, refused, 'refusals are recorded too');
    assert.ok(
      rows.filter((r) => r.status === 402).every((r) => r.cost_usd === 0 && r.prompt_tokens === 0),
      'a refused request costs nothing',
    );
    assert.equal(await chargeCount(tg, customer.accountId), ok, 'number of charges = number of 200s');

    const spent = charged.reduce((sum, r) => sum + usdToNanoExact(r.cost_usd), 0);
    const balance = tg.balanceNano(customer.accountId);
    assert.equal(balance, usdToNanoExact(creditUsd) - spent);
    const oneRequest = Math.max(...charged.map((r) => usdToNanoExact(r.cost_usd)));
    assert.ok(balance >= -oneRequest, `balance ${balance} must not go below zero by more than one request's cost (${oneRequest})`);
    // reservations are upper bounds (≤ 20 prompt tokens × 150 + 50 × 600 = 33 000 nano), so at least
    // ⌊320 000 / 33 000⌋ = 9 requests fit whatever the interleaving
    assert.ok(ok >= 9, `at least 9 requests fit in the balance (got ${ok})`);
    await tg.assertBillingInvariants(customer.accountId);
  });
}

test('a balance that covers every request: all succeed and the charges add up', async () => {
  const { customer, ok, refused } = await runBurst(1, false);
  assert.equal(ok, PARALLEL);
  assert.equal(refused, 0);
  const rows = await usageRows(tg, customer.accountId);
  const spent = rows.reduce((sum, r) => sum + usdToNanoExact(r.cost_usd), 0);
  assert.equal(tg.balanceNano(customer.accountId), 1e9 - spent);
  assert.equal(await chargeCount(tg, customer.accountId), PARALLEL);
  await tg.assertBillingInvariants(customer.accountId);
});
