// What is never charged: upstream failures (error answers, refused connections) and requests
// refused by a key's spend cap. Each refusal leaves the balance and the journal untouched.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { addDeadProvider, addSimProvider, chargeCount, usageRows, usdToNanoExact, type SimProvider } from '../helpers/upstreams.ts';

let tg: TestGateway;
let second: SimProvider;

before(async () => {
  // gpt-4o-mini: served by "sim" and by a second simulator (both can be made to fail)
  // gpt-4o: served only by a provider whose port refuses connections
  tg = await startTestGateway({ models: ['gpt-4o-mini', 'text-embedding-3-small'] });
  second = await addSimProvider(tg, { name: 'second', models: ['gpt-4o-mini'] });
  await addDeadProvider(tg, 'dead', ['gpt-4o']);
});
after(async () => {
  await tg.close();
  await second.close();
});

const CREDIT_USD = 1;
const client = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });

async function assertNothingCharged(customer: Customer): Promise<void> {
  assert.equal(tg.balanceNano(customer.accountId), CREDIT_USD * 1e9);
  assert.equal(await chargeCount(tg, customer.accountId), 0);
  for (const row of await usageRows(tg, customer.accountId)) assert.equal(row.cost_usd, 0);
  await tg.assertBillingInvariants(customer.accountId);
}

async function expectStatus(promise: Promise<unknown>, status: number): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.equal(error.status, status, error.message);
    return error;
  }
  assert.fail(`expected HTTP ${status}`);
}

describe('upstream failures', () => {
  test('HTTP 500 from every provider: 502 server_error, not charged', async () => {
    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'status', status: 500 });
    second.sim.enqueue({ kind: 'status', status: 500 });
    const error = await expectStatus(client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'fail' }] }), 502);
    assert.equal((error.error as { type?: string }).type, 'server_error');
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 502);
    await assertNothingCharged(customer);
  });

  test('HTTP 500 on a streamed request before any byte: an error answer, not a stream; not charged', async () => {
    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'status', status: 503 });
    second.sim.enqueue({ kind: 'status', status: 500 });
    const res = await fetch(`${tg.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'fail' }] }),
    });
    assert.equal(res.status, 502);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(((await res.json()) as { error: { type: string } }).error.type, 'server_error');
    await assertNothingCharged(customer);
  });

  test('a refused connection: 502, not charged', async () => {
    const customer = await tg.customer(CREDIT_USD);
    const error = await expectStatus(client(customer).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'nobody home' }] }), 502);
    assert.equal(error.code, 'upstream_connect');
    await assertNothingCharged(customer);
  });

  test('an upstream 400 (the request itself is bad) reaches the client and is not charged', async () => {
    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'status', status: 400, code: 'context_length_exceeded', message: 'too long' });
    second.sim.enqueue({ kind: 'status', status: 400, code: 'context_length_exceeded', message: 'too long' });
    const error = await expectStatus(client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'long' }] }), 400);
    assert.equal(error.code, 'context_length_exceeded');
    await assertNothingCharged(customer);
    tg.sim!.reset();
    second.sim.reset();
  });
});

describe('key spend cap', () => {
  test('requests go through until the cap is reached, then 402; other keys of the account still work', async () => {
    // one request reserves at most ~12 × 150 + 10 × 600 = 7 800 nano; a cap of 20 000 nano fits two
    const customer = await tg.customer(CREDIT_USD, { max_spend_usd: 0.00002 });
    const c = client(customer);
    const ask = () => c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'capped' }], max_tokens: 10 });
    let succeeded = 0;
    let refusal: InstanceType<typeof OpenAI.APIError> | undefined;
    for (let i = 0; i < 10 && !refusal; i++) {
      try {
        await ask();
        succeeded++;
      } catch (error) {
        assert.ok(error instanceof OpenAI.APIError);
        refusal = error;
      }
    }
    assert.ok(refusal, 'the cap was reached');
    assert.equal(refusal.status, 402);
    assert.equal(refusal.code, 'insufficient_quota');
    assert.match(refusal.message, /spend cap/);
    assert.ok(succeeded >= 2, `requests under the cap succeed (${succeeded})`);

    const key = await tg.admin('GET', `/admin/keys/${customer.keyId}`);
    const spent = usdToNanoExact(key.body.spent_usd);
    const rows = await usageRows(tg, customer.accountId);
    const charged = rows.reduce((sum, r) => sum + usdToNanoExact(r.cost_usd), 0);
    assert.equal(spent, charged, 'the key’s spend is the sum of its charges');
    assert.equal(tg.balanceNano(customer.accountId), 1e9 - charged, 'the refused request cost nothing');
    assert.equal(await chargeCount(tg, customer.accountId), succeeded);
    // still refused: the cap holds across requests
    await expectStatus(ask(), 402);

    // raising the cap lets the key through again
    const raised = await tg.admin('PATCH', `/admin/keys/${customer.keyId}`, { max_spend_usd: 1 });
    assert.equal(raised.status, 200);
    await ask();

    // a second key of the same account has its own (absent) cap
    const other = await tg.admin('POST', `/admin/accounts/${customer.accountId}/keys`, { name: 'uncapped' });
    assert.equal(other.status, 201);
    const otherClient = new OpenAI({ apiKey: other.body.key, baseURL: tg.baseURL, maxRetries: 0 });
    await otherClient.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'free' }], max_tokens: 10 });
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('a cap below one request’s upper bound refuses the first request', async () => {
    const customer = await tg.customer(CREDIT_USD, { max_spend_usd: 0.000001 }); // 1 000 nano
    await expectStatus(client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], max_tokens: 10 }), 402);
    await assertNothingCharged(customer);
  });

  test('an account without credit gets 402 and is not charged', async () => {
    const customer = await tg.customer(0);
    const error = await expectStatus(client(customer).embeddings.create({ model: 'text-embedding-3-small', input: 'x' }), 402);
    assert.equal(error.code, 'insufficient_quota');
    assert.equal(tg.balanceNano(customer.accountId), 0);
    await tg.assertBillingInvariants(customer.accountId);
  });
});
