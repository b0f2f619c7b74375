// Two gateways sharing one PostgreSQL schema: what the admin API changes on one instance is
// honoured by the other within a second, and charges made on either add up in both.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import type { Gateway } from '../../src/gateway.ts';
import type { AccountRecord } from '../../src/store/repositories/accounts.ts';
import type { ApiKeyRecord } from '../../src/store/repositories/api-keys.ts';
import { postgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { usageRows, usdToNanoExact } from '../helpers/upstreams.ts';

const database = postgresDatabase('multi');
let a: TestGateway;
let b: TestGateway;

before(async () => {
  // A registers the simulator as a provider; B learns about it from the database
  a = await startTestGateway({ databaseUrl: database.url });
  b = await startTestGateway({ databaseUrl: database.url, simulator: false });
  await b.gateway.sync.now();
  assert.ok(b.gateway.router.serves('gpt-4o-mini'), 'B routes with the provider A created');
});
after(async () => {
  await b?.close();
  await a?.close();
  await database.drop();
});

/**
 * Resolves when B's background sync loop applies a key record matching `match` (or at once when
 * B's state already matches): an event, not a timer. Returns how long it took.
 */
function keyApplied(gateway: Gateway, id: string, match: (record: ApiKeyRecord) => boolean): Promise<number> {
  const started = performance.now();
  const current = gateway.keys.get(id);
  if (current && match(current)) return Promise.resolve(0);
  return new Promise((resolve) => {
    const original = gateway.keys.apply.bind(gateway.keys);
    gateway.keys.apply = (record: ApiKeyRecord) => {
      original(record);
      if (record.id === id && match(record)) {
        gateway.keys.apply = original;
        resolve(performance.now() - started);
      }
    };
  });
}

function accountApplied(gateway: Gateway, id: string, match: (record: AccountRecord) => boolean): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const original = gateway.ledger.applyAccount.bind(gateway.ledger);
    gateway.ledger.applyAccount = (record: AccountRecord) => {
      original(record);
      if (record.id === id && match(record)) {
        gateway.ledger.applyAccount = original;
        resolve(performance.now() - started);
      }
    };
  });
}

const chat = (tg: TestGateway, key: string, content: string) =>
  new OpenAI({ apiKey: key, baseURL: tg.baseURL, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });

test('a key created on A works on B within a second', async () => {
  const customer = await a.customer(1);
  const elapsed = await keyApplied(b.gateway, customer.keyId, () => true);
  assert.ok(elapsed < 1000, `B applied the new key after ${elapsed} ms`);
  const reply = await chat(b, customer.key, 'hello from B');
  assert.ok(reply.choices[0]!.message.content);
});

test('a key disabled on A is refused by B within a second, and works again once re-enabled', async () => {
  const customer = await a.customer(1);
  await keyApplied(b.gateway, customer.keyId, () => true);
  await chat(b, customer.key, 'before disabling');

  const disabledOnB = keyApplied(b.gateway, customer.keyId, (r) => r.disabled);
  assert.equal((await a.admin('PATCH', `/admin/keys/${customer.keyId}`, { disabled: true })).status, 200);
  assert.ok((await disabledOnB) < 1000);
  await assert.rejects(chat(b, customer.key, 'while disabled'), (error: unknown) => error instanceof OpenAI.APIError && error.status === 401);

  const enabledOnB = keyApplied(b.gateway, customer.keyId, (r) => !r.disabled);
  assert.equal((await a.admin('PATCH', `/admin/keys/${customer.keyId}`, { disabled: false })).status, 200);
  assert.ok((await enabledOnB) < 1000);
  await chat(b, customer.key, 'enabled again');

  // revoked on A: B forgets the key
  const revokedOnB = keyApplied(b.gateway, customer.keyId, (r) => r.revoked);
  assert.equal((await a.admin('DELETE', `/admin/keys/${customer.keyId}`)).status, 200);
  await revokedOnB;
  assert.equal(b.gateway.keys.get(customer.keyId), undefined);
  await assert.rejects(chat(b, customer.key, 'revoked'), (error: unknown) => error instanceof OpenAI.APIError && error.status === 401);
});

test('a credit on A appears in B’s balance within a second', async () => {
  const customer = await a.customer(1);
  await b.gateway.sync.now();
  assert.equal(b.balanceNano(customer.accountId), 1e9);
  const seenOnB = accountApplied(b.gateway, customer.accountId, (r) => r.balanceNano === 3.5e9);
  assert.equal((await a.admin('POST', `/admin/accounts/${customer.accountId}/credit`, { amount_usd: 2.5 })).status, 200);
  assert.ok((await seenOnB) < 1000);
  assert.equal(b.balanceNano(customer.accountId), 3.5e9);
});

test('charges made on B are in A’s balance after B’s flush; charges on both add up everywhere', async () => {
  const customer = await a.customer(1);
  await b.gateway.sync.now();
  let expected = 1e9;
  for (let i = 0; i < 3; i++) {
    const reply = await chat(b, customer.key, `charged on B ${i}`);
    expected -= reply.usage!.prompt_tokens * 150 + reply.usage!.completion_tokens * 600;
  }
  const reply = await chat(a, customer.key, 'charged on A');
  expected -= reply.usage!.prompt_tokens * 150 + reply.usage!.completion_tokens * 600;

  await b.gateway.sync.now(); // B's charges are durable
  await a.gateway.sync.now(); // A's too, and A pulls B's
  await b.gateway.sync.now(); // B pulls A's
  assert.equal(a.balanceNano(customer.accountId), expected);
  assert.equal(b.balanceNano(customer.accountId), expected);
  await a.assertBillingInvariants(customer.accountId);
  await b.assertBillingInvariants(customer.accountId);

  const rows = await usageRows(a, customer.accountId);
  assert.equal(rows.length, 4, 'usage rows from both instances');
  assert.equal(1e9 - rows.reduce((sum, r) => sum + usdToNanoExact(r.cost_usd), 0), expected);
  const keyOnA = await a.admin('GET', `/admin/keys/${customer.keyId}`);
  assert.equal(usdToNanoExact(keyOnA.body.spent_usd), 1e9 - expected, 'the key’s spend includes the charges made on B');
});

test('concurrent traffic on both instances: balance = journal on both', async () => {
  const customer = await a.customer(5);
  await b.gateway.sync.now();
  await Promise.all(Array.from({ length: 20 }, (_, i) => chat(i % 2 === 0 ? a : b, customer.key, `both ${i}`)));
  await Promise.all([a.gateway.sync.now(), b.gateway.sync.now()]);
  await Promise.all([a.gateway.sync.now(), b.gateway.sync.now()]);
  const rows = await usageRows(b, customer.accountId);
  assert.equal(rows.length, 20);
  const expected = 5e9 - rows.reduce((sum, r) => sum + usdToNanoExact(r.cost_usd), 0);
  assert.equal(a.balanceNano(customer.accountId), expected);
  assert.equal(b.balanceNano(customer.accountId), expected);
  await a.assertBillingInvariants(customer.accountId);
  await b.assertBillingInvariants(customer.accountId);
});
