// The admin API of contract §2 end to end, each change checked by the very next client request;
// plus the operations endpoints (/healthz, /readyz, /metrics).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AuthenticationError, NotFoundError } from 'openai';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { assertErrorBody, lastUpstreamBody, MINI, raw, sdk, sdkError, tokenCost } from './support.ts';

const USD = 1_000_000_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const hi = (model = 'gpt-4o-mini') => ({ model, messages: [{ role: 'user' as const, content: 'Hi' }] });
const toNano = (usd: number) => Math.round(usd * USD);

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway();
});
after(async () => {
  await tg.close();
});

describe('admin authentication', () => {
  test('401 without a token and with a wrong one', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-token' }, { authorization: ADMIN_TOKEN }];
    for (const headers of attempts) {
      const res = await raw(tg, 'GET', '/admin/accounts', { headers });
      assert.equal(res.status, 401);
      assertErrorBody(res.json, { type: 'authentication_error' });
    }
    const ok = await raw(tg, 'GET', '/admin/accounts', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(ok.status, 200);
  });

  test('with no admin token configured, everyone gets 401', async () => {
    const closed = await startTestGateway({ env: { MODELGATE_ADMIN_TOKEN: '' }, simulator: false });
    try {
      for (const authorization of [undefined, `Bearer ${ADMIN_TOKEN}`, 'Bearer ', 'Bearer undefined']) {
        for (const path of ['/admin/accounts', '/admin/providers', '/metrics']) {
          const res = await raw(closed, 'GET', path, { headers: authorization === undefined ? {} : { authorization } });
          assert.equal(res.status, 401, `${path} with ${authorization}`);
          assertErrorBody(res.json, { type: 'authentication_error' });
        }
      }
      const create = await raw(closed, 'POST', '/admin/accounts', { body: { name: 'x' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(create.status, 401);
    } finally {
      await closed.close();
    }
  });
});

describe('providers', () => {
  const secret = 'sim-upstream-key';

  test('create, read, change (applied to the next request), delete; the api_key is never returned', async () => {
    const customer = await tg.customer(1);
    const client = sdk(tg, customer.key);
    // gpt-4.1-mini is served by this provider only
    const created = await tg.admin('POST', '/admin/providers', {
      name: 'crud',
      type: 'openai',
      base_url: tg.sim!.baseUrl,
      api_key: secret,
      models: ['gpt-4.1-mini'],
      priority: 5,
      weight: 2,
    });
    assert.equal(created.status, 201);
    const provider = created.body;
    assert.match(provider.id, /^prov_/);
    assert.deepEqual(
      { name: provider.name, type: provider.type, base_url: provider.base_url, models: provider.models, priority: provider.priority, weight: provider.weight, enabled: provider.enabled },
      { name: 'crud', type: 'openai', base_url: tg.sim!.baseUrl, models: ['gpt-4.1-mini'], priority: 5, weight: 2, enabled: true },
    );
    assert.equal(provider.api_key, undefined);
    assert.equal(provider.api_key_preview, '…-key');

    const one = await tg.admin('GET', `/admin/providers/${provider.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.name, 'crud');
    const list = await tg.admin('GET', '/admin/providers');
    assert.deepEqual(list.body.data.map((p: { name: string }) => p.name).sort(), ['crud', 'sim']);
    for (const body of [created.body, one.body, list.body]) assert.ok(!JSON.stringify(body).includes(secret), 'the upstream key is write-only');

    assert.equal((await client.chat.completions.create(hi('gpt-4.1-mini'))).model, 'gpt-4.1-mini');

    const unknownType = await tg.admin('POST', '/admin/providers', { name: 'odd', type: 'carrier-pigeon', base_url: 'http://127.0.0.1:9/v1', api_key: 'k', models: ['m'] });
    assert.equal(unknownType.status, 400);
    assertErrorBody(unknownType.body, { type: 'invalid_request_error', param: 'type' });
    const duplicate = await tg.admin('POST', '/admin/providers', { name: 'crud', type: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'k', models: ['m'] });
    assert.equal(duplicate.status, 409);
    assertErrorBody(duplicate.body, { type: 'invalid_request_error', param: 'name' });

    // disabling the only provider of a model: 404 on the very next request; enabling restores it
    const disabled = await tg.admin('PATCH', `/admin/providers/${provider.id}`, { enabled: false });
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.enabled, false);
    await sdkError(client.chat.completions.create(hi('gpt-4.1-mini')), { cls: NotFoundError, status: 404, type: 'not_found', param: 'model' });
    assert.ok(!(await client.models.list()).data.some((m) => m.id === 'gpt-4.1-mini'));
    assert.equal((await tg.admin('PATCH', `/admin/providers/${provider.id}`, { enabled: true })).status, 200);
    assert.equal((await client.chat.completions.create(hi('gpt-4.1-mini'))).model, 'gpt-4.1-mini');

    // a misspelt field is refused by name, not a silent no-op
    const typo = await tg.admin('PATCH', `/admin/providers/${provider.id}`, { enabeld: false });
    assert.equal(typo.status, 400);
    assert.match(JSON.stringify(typo.body), /enabeld/);

    // a new upstream key and model map are used by the next request, and are not echoed either
    const remapped = await tg.admin('PATCH', `/admin/providers/${provider.id}`, { api_key: secret, model_map: { 'gpt-4.1-mini': 'renamed-upstream' } });
    assert.equal(remapped.status, 200);
    assert.ok(!JSON.stringify(remapped.body).includes(secret));
    assert.deepEqual(remapped.body.model_map, { 'gpt-4.1-mini': 'renamed-upstream' });
    assert.equal((await client.chat.completions.create(hi('gpt-4.1-mini'))).model, 'gpt-4.1-mini');
    assert.equal(lastUpstreamBody(tg, '/v1/chat/completions').model, 'renamed-upstream');

    const deleted = await tg.admin('DELETE', `/admin/providers/${provider.id}`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, { id: provider.id, deleted: true });
    assert.equal((await tg.admin('GET', `/admin/providers/${provider.id}`)).status, 404);
    assert.deepEqual((await tg.admin('GET', '/admin/providers')).body.data.map((p: { name: string }) => p.name), ['sim']);
    await sdkError(client.chat.completions.create(hi('gpt-4.1-mini')), { cls: NotFoundError, status: 404, type: 'not_found' });
    await tg.assertBillingInvariants(customer.accountId);
  });
});

test('models: the catalogue lists the embedding models with prices; a price change applies to the next request', async () => {
  const models = await tg.admin('GET', '/admin/models');
  assert.equal(models.status, 200);
  const byId = new Map<string, any>(models.body.data.map((m: { id: string }) => [m.id, m]));
  for (const [id, price, dimensions] of [['text-embedding-3-small', 0.02, 1536], ['text-embedding-3-large', 0.13, 3072], ['text-embedding-ada-002', 0.1, 1536]] as const) {
    const model = byId.get(id);
    assert.ok(model, `${id} is listed`);
    assert.equal(model.kind, 'embedding');
    assert.equal(model.pricing.input_per_mtok, price);
    assert.equal(model.capabilities.dimensions, dimensions);
  }
  assert.deepEqual(byId.get('gpt-4o').pricing, {
    input_per_mtok: 2.5,
    output_per_mtok: 10,
    cached_input_per_mtok: 1.25,
    service_tiers: { priority: { input_per_mtok: 4.25, cached_input_per_mtok: 2.125, output_per_mtok: 17 } },
  });

  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  const first = (await client.chat.completions.create(hi('gpt-4o'))).usage!;
  const afterFirst = tg.balanceNano(customer.accountId);
  assert.equal(USD - afterFirst, tokenCost(first.prompt_tokens, first.completion_tokens, 2500, 10_000));

  const put = await tg.admin('PUT', '/admin/models/gpt-4o', { pricing: { input_per_mtok: 1, output_per_mtok: 2 } });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body.pricing, { input_per_mtok: 1, output_per_mtok: 2 });
  assert.equal(put.body.pricing_source, 'override');
  const second = (await client.chat.completions.create(hi('gpt-4o'))).usage!;
  assert.equal(afterFirst - tg.balanceNano(customer.accountId), tokenCost(second.prompt_tokens, second.completion_tokens, 1000, 2000));
  assert.deepEqual((await tg.admin('GET', '/admin/models')).body.data.find((m: { id: string }) => m.id === 'gpt-4o').pricing, { input_per_mtok: 1, output_per_mtok: 2 });
  await tg.assertBillingInvariants(customer.accountId);
});

test('accounts: create, list, get, patch; a disabled account\'s keys are refused', async () => {
  const created = await tg.admin('POST', '/admin/accounts', { name: 'Acme', email: 'ops@acme.test' });
  assert.equal(created.status, 201);
  const account = created.body;
  assert.match(account.id, /^acct_/);
  assert.deepEqual({ name: account.name, email: account.email, balance_usd: account.balance_usd }, { name: 'Acme', email: 'ops@acme.test', balance_usd: 0 });
  assert.match(account.created_at, ISO);

  const list = await tg.admin('GET', '/admin/accounts');
  assert.ok(list.body.data.some((a: { id: string }) => a.id === account.id));
  const one = await tg.admin('GET', `/admin/accounts/${account.id}`);
  assert.equal(one.body.name, 'Acme');
  assert.equal((await tg.admin('GET', '/admin/accounts/acct_missing')).status, 404);

  const patched = await tg.admin('PATCH', `/admin/accounts/${account.id}`, { name: 'Acme Ltd', email: null });
  assert.equal(patched.status, 200);
  assert.deepEqual({ name: patched.body.name, email: patched.body.email }, { name: 'Acme Ltd', email: null });
  assert.equal((await tg.admin('GET', `/admin/accounts/${account.id}`)).body.name, 'Acme Ltd');

  assert.equal((await tg.admin('POST', `/admin/accounts/${account.id}/credit`, { amount_usd: 1 })).status, 200);
  const key = (await tg.admin('POST', `/admin/accounts/${account.id}/keys`, {})).body.key;
  const client = sdk(tg, key);
  assert.equal((await client.chat.completions.create(hi())).object, 'chat.completion');
  assert.equal((await tg.admin('PATCH', `/admin/accounts/${account.id}`, { disabled: true })).status, 200);
  await sdkError(client.chat.completions.create(hi()), { cls: AuthenticationError, status: 401, type: 'authentication_error', message: /disabled/ });
  assert.equal((await tg.admin('PATCH', `/admin/accounts/${account.id}`, { disabled: false })).status, 200);
  assert.equal((await client.chat.completions.create(hi())).object, 'chat.completion');
  await tg.assertBillingInvariants(account.id);
});

test('credit: positive and negative amounts, balance_usd returned, an Idempotency-Key applies once', async () => {
  const account = (await tg.admin('POST', '/admin/accounts', { name: 'Credits' })).body;
  const credit = (amount_usd: number, headers: Record<string, string> = {}) => tg.admin('POST', `/admin/accounts/${account.id}/credit`, { amount_usd, note: 'test' }, headers);

  assert.deepEqual((await credit(10)).body, { balance_usd: 10 });
  assert.deepEqual((await credit(-2.5)).body, { balance_usd: 7.5 });
  const first = await credit(5, { 'idempotency-key': 'topup-42' });
  const replay = await credit(5, { 'idempotency-key': 'topup-42' });
  assert.deepEqual([first.status, replay.status], [200, 200]);
  assert.deepEqual([first.body.balance_usd, replay.body.balance_usd], [12.5, 12.5]);
  assert.deepEqual((await credit(5, { 'idempotency-key': 'topup-43' })).body, { balance_usd: 17.5 });

  const zero = await credit(0);
  assert.equal(zero.status, 400);
  assertErrorBody(zero.body, { type: 'invalid_request_error', param: 'amount_usd' });
  assert.equal((await tg.admin('POST', '/admin/accounts/acct_missing/credit', { amount_usd: 1 })).status, 404);

  const ledger = await tg.admin('GET', `/admin/accounts/${account.id}/ledger`);
  assert.deepEqual(ledger.body.data.map((e: { kind: string; amount_usd: number }) => [e.kind, e.amount_usd]), [['credit', 5], ['credit', 5], ['correction', -2.5], ['credit', 10]]);
  assert.equal((await tg.admin('GET', `/admin/accounts/${account.id}`)).body.balance_usd, 17.5);
  await tg.assertBillingInvariants(account.id);
});

test('keys: the secret is shown once; lists show only the hint; patch and revoke apply to the next request', async () => {
  const customer = await tg.customer(1);
  const created = await tg.admin('POST', `/admin/accounts/${customer.accountId}/keys`, { name: 'prod', models: ['gpt-4o-mini'], rpm: 600 });
  assert.equal(created.status, 201);
  const { id, key: secret } = created.body;
  assert.match(secret, /^sk-[0-9A-Za-z]{32,}$/);
  assert.deepEqual({ name: created.body.name, models: created.body.models, rpm: created.body.rpm, status: created.body.status }, { name: 'prod', models: ['gpt-4o-mini'], rpm: 600, status: 'active' });
  assert.equal(created.body.key_hint, `${secret.slice(0, 6)}…${secret.slice(-4)}`);

  const listed = await tg.admin('GET', `/admin/accounts/${customer.accountId}/keys`);
  assert.deepEqual(listed.body.data.map((k: { id: string }) => k.id).sort(), [customer.keyId, id].sort());
  const one = await tg.admin('GET', `/admin/keys/${id}`);
  for (const body of [listed.body, one.body]) {
    const text = JSON.stringify(body);
    assert.ok(!text.includes(secret) && !text.includes(customer.key), 'secrets are never listed');
    assert.ok(!text.includes('"key":'), 'no key field');
  }
  assert.equal(one.body.key_hint, created.body.key_hint);

  const client = sdk(tg, secret);
  assert.equal((await client.chat.completions.create(hi())).object, 'chat.completion');
  await sdkError(client.chat.completions.create(hi('gpt-4o')), { cls: NotFoundError, status: 404, type: 'not_found' });

  const patched = await tg.admin('PATCH', `/admin/keys/${id}`, { name: 'renamed', models: null, rpm: 5 });
  assert.equal(patched.status, 200);
  assert.deepEqual({ name: patched.body.name, models: patched.body.models, rpm: patched.body.rpm }, { name: 'renamed', models: null, rpm: 5 });
  const { response } = await client.chat.completions.create(hi('gpt-4o')).withResponse();
  assert.equal(response.headers.get('x-ratelimit-limit-requests'), '5', 'the new limits apply to the next request');

  const revoked = await tg.admin('DELETE', `/admin/keys/${id}`);
  assert.equal(revoked.status, 200);
  await sdkError(client.chat.completions.create(hi()), { cls: AuthenticationError, status: 401, type: 'authentication_error' });
  assert.equal((await tg.admin('GET', `/admin/keys/${id}`)).status, 404);
  assert.equal((await tg.admin('PATCH', '/admin/keys/key_missing', { name: 'x' })).status, 404);
  // the other key of the account still works
  assert.equal((await sdk(tg, customer.key).chat.completions.create(hi())).object, 'chat.completion');
});

test('usage: one row per request, newest first, filtered by account, key, model and limit; the ledger sums to the balance', async () => {
  const customer = await tg.customer(1);
  const other = (await tg.admin('POST', `/admin/accounts/${customer.accountId}/keys`, { name: 'second' })).body;
  const a = sdk(tg, customer.key);
  const chat = (await a.chat.completions.create(hi())).usage!;
  const embedding = (await a.embeddings.create({ model: 'text-embedding-3-small', input: 'usage please' })).usage;
  const chatB = (await sdk(tg, other.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'From the second key' }] })).usage!;

  const all = await tg.admin('GET', `/admin/usage?account_id=${customer.accountId}`);
  assert.equal(all.status, 200);
  const rows = all.body.data;
  const fields = ['id', 'created_at', 'account_id', 'key_id', 'model', 'endpoint', 'provider_id', 'status', 'prompt_tokens', 'completion_tokens', 'units', 'cost_usd', 'latency_ms'];
  for (const row of rows) {
    for (const field of fields) assert.ok(field in row, `usage rows carry ${field}`);
    assert.match(row.created_at, ISO);
    assert.equal(row.account_id, customer.accountId);
    assert.equal(row.provider_id, tg.providerId);
    assert.equal(row.status, 200);
    assert.ok(Number.isInteger(row.latency_ms) && row.latency_ms >= 0);
  }
  const summary = rows.map((r: any) => [r.key_id, r.model, r.endpoint, r.prompt_tokens, r.completion_tokens, toNano(r.cost_usd)]);
  assert.deepEqual(summary, [
    [other.id, 'gpt-4o-mini', '/v1/chat/completions', chatB.prompt_tokens, chatB.completion_tokens, tokenCost(chatB.prompt_tokens, chatB.completion_tokens, MINI.input, MINI.output)],
    [customer.keyId, 'text-embedding-3-small', '/v1/embeddings', embedding.prompt_tokens, 0, tokenCost(embedding.prompt_tokens, 0, 20)],
    [customer.keyId, 'gpt-4o-mini', '/v1/chat/completions', chat.prompt_tokens, chat.completion_tokens, tokenCost(chat.prompt_tokens, chat.completion_tokens, MINI.input, MINI.output)],
  ]);
  assert.ok(rows[0].id > rows[1].id && rows[1].id > rows[2].id, 'newest first');

  const ids = async (query: string) => (await tg.admin('GET', `/admin/usage?${query}`)).body.data.map((r: { id: number }) => r.id);
  assert.deepEqual(await ids(`key_id=${other.id}`), [rows[0].id]);
  assert.deepEqual(await ids(`key_id=${customer.keyId}`), [rows[1].id, rows[2].id]);
  assert.deepEqual(await ids(`account_id=${customer.accountId}&model=text-embedding-3-small`), [rows[1].id]);
  assert.deepEqual(await ids(`account_id=${customer.accountId}&limit=2`), [rows[0].id, rows[1].id]);
  assert.deepEqual(await ids(`account_id=${customer.accountId}&key_id=${other.id}&model=text-embedding-3-small`), []);

  const ledger = await tg.admin('GET', `/admin/accounts/${customer.accountId}/ledger`);
  const entries = ledger.body.data;
  assert.deepEqual(entries.map((e: { kind: string }) => e.kind), ['charge', 'charge', 'charge', 'credit']);
  const sum = entries.reduce((total: number, e: { amount_usd: number }) => total + toNano(e.amount_usd), 0);
  assert.equal(sum, toNano(ledger.body.balance_usd));
  assert.equal(sum, tg.balanceNano(customer.accountId));
  assert.deepEqual(entries.slice(0, 3).map((e: { amount_usd: number }) => -toNano(e.amount_usd)), rows.map((r: { cost_usd: number }) => toNano(r.cost_usd)));
  assert.deepEqual(entries.slice(0, 3).map((e: { key_id: string }) => e.key_id), [other.id, customer.keyId, customer.keyId]);
  await tg.assertBillingInvariants(customer.accountId);
});

test('operations: /healthz, /readyz and /metrics (admin token; counts requests)', async () => {
  const health = await raw(tg, 'GET', '/healthz');
  assert.deepEqual([health.status, health.json], [200, { status: 'ok' }]);
  const ready = await raw(tg, 'GET', '/readyz');
  assert.equal(ready.status, 200);
  const readiness = ready.json as { status: string; flush: { lag_ms: number; pending_writes: number; dead_letters: number; stuck_journal_entries: number } };
  assert.equal(readiness.status, 'ready');
  // the write-behind's health: nothing waits, nothing was set aside
  assert.equal(readiness.flush.dead_letters, 0);
  assert.equal(readiness.flush.stuck_journal_entries, 0);
  assert.ok(readiness.flush.lag_ms >= 0 && Number.isFinite(readiness.flush.lag_ms));

  const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer nope' }];
  for (const headers of attempts) {
    const denied = await raw(tg, 'GET', '/metrics', { headers });
    assert.equal(denied.status, 401);
    assertErrorBody(denied.json, { type: 'authentication_error' });
  }
  const line = /^modelgate_requests_total\{endpoint="\/v1\/chat\/completions",status="200"\} (\d+)$/m;
  const timed = /^modelgate_request_duration_seconds_count\{endpoint="\/v1\/chat\/completions"\} (\d+)$/m;
  const upstreamTimed = /^modelgate_upstream_first_byte_seconds_count\{provider="[^"]+"\} (\d+)$/gm;
  const count = async () => {
    const res = await raw(tg, 'GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(res.text, /# TYPE modelgate_requests_total counter/);
    assert.match(res.text, /# TYPE modelgate_request_duration_seconds histogram/);
    const read = (pattern: RegExp) => Number(pattern.exec(res.text)?.[1] ?? 0);
    // every provider's count together: the request went to one of them
    const upstream = [...res.text.matchAll(upstreamTimed)].reduce((sum, match) => sum + Number(match[1]), 0);
    return [read(line), read(timed), upstream];
  };
  const before = await count();
  const customer = await tg.customer(1);
  await sdk(tg, customer.key).chat.completions.create(hi());
  // the request counted, and timed end to end and to the upstream's first byte
  assert.deepEqual(await count(), before.map((n) => n + 1));
});
