// The operator's limits on a key (admin API) hold whatever the customer does in the console: the
// customer may tighten them with limits of their own, never lift them; both are shown, and /v1
// applies the tighter of the two.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startConsoleGateway, type ConsoleCustomer, type ConsoleGateway } from '../helpers/console.ts';

describe('operator key limits against the customer console', () => {
  let tg: ConsoleGateway;
  let customer: ConsoleCustomer;
  before(async () => {
    tg = await startConsoleGateway();
    customer = await tg.registerCustomer(5);
  });
  after(async () => {
    await tg.close();
  });

  const newKey = async () => {
    const created = await customer.client.post('/console/api/keys', { name: `k-${Math.random().toString(36).slice(2, 6)}` });
    assert.equal(created.status, 201, created.text);
    return { id: created.body.key.id as string, secret: created.body.secret as string };
  };
  const patchAsCustomer = (id: string, body: unknown) => customer.client.call('PATCH', `/console/api/keys/${id}`, body);
  const consoleView = async (id: string) => {
    const list = await customer.client.get('/console/api/keys');
    assert.equal(list.status, 200);
    return list.body.data.find((k: { id: string }) => k.id === id);
  };
  const chat = (secret: string, extra: Record<string, unknown> = {}) =>
    new OpenAI({ apiKey: secret, baseURL: tg.baseURL, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], ...extra });
  const statusOf = async (call: Promise<unknown>) => {
    try {
      await call;
      return 200;
    } catch (error) {
      assert.ok(error instanceof OpenAI.APIError, String(error));
      return error.status;
    }
  };

  test('a key the operator disabled and capped stays disabled and capped whatever the customer patches', async () => {
    const key = await newKey();
    assert.equal(await statusOf(chat(key.secret)), 200);
    const imposed = await tg.admin('PATCH', `/admin/keys/${key.id}`, { disabled: true, max_spend_usd: 0.01 });
    assert.equal(imposed.status, 200, JSON.stringify(imposed.body));

    const undo = await patchAsCustomer(key.id, { disabled: false, max_spend_usd: null });
    assert.equal(undo.status, 403, undo.text);
    assert.equal(undo.body.error.param, 'disabled');
    const uncap = await patchAsCustomer(key.id, { max_spend_usd: null });
    assert.equal(uncap.status, 403, uncap.text);
    assert.equal(uncap.body.error.param, 'max_spend_usd');
    const raise = await patchAsCustomer(key.id, { max_spend_usd: 1 });
    assert.equal(raise.status, 403, raise.text);
    assert.equal(raise.body.error.param, 'max_spend_usd');

    assert.equal(await statusOf(chat(key.secret)), 401, 'the key does not serve');
    const admin = await tg.admin('GET', `/admin/accounts/${customer.accountId}/keys`);
    const shown = admin.body.data.find((k: { id: string }) => k.id === key.id);
    assert.equal(shown.disabled, true);
    assert.equal(shown.max_spend_usd, 0.01);
    assert.equal(shown.status, 'disabled');

    // the operator enables it again: the cap still holds on /v1 (a call that may cost $0.02 is refused)
    assert.equal((await tg.admin('PATCH', `/admin/keys/${key.id}`, { disabled: false })).status, 200);
    assert.equal(await statusOf(chat(key.secret)), 200);
    assert.equal(await statusOf(chat(key.secret, { model: 'gpt-4o', max_tokens: 2000 })), 402, 'the operator’s cap limits what one call may cost');
  });

  test('the customer may tighten: their own limits apply beside the operator’s, and the console shows both', async () => {
    const key = await newKey();
    assert.equal((await tg.admin('PATCH', `/admin/keys/${key.id}`, { max_spend_usd: 0.01, rpm: 100 })).status, 200);
    const tighter = await patchAsCustomer(key.id, { max_spend_usd: 0.005, rpm: 50 });
    assert.equal(tighter.status, 200, tighter.text);
    const view = await consoleView(key.id);
    assert.equal(view.max_spend_usd, '0.005', 'what applies is the tighter cap');
    assert.equal(view.rpm, 50);
    assert.deepEqual(
      { operator: [view.operator_limits.max_spend_usd, view.operator_limits.rpm], own: [view.own_limits.max_spend_usd, view.own_limits.rpm] },
      { operator: ['0.01', 100], own: ['0.005', 50] },
    );
    const admin = (await tg.admin('GET', `/admin/accounts/${customer.accountId}/keys`)).body.data.find((k: { id: string }) => k.id === key.id);
    assert.equal(admin.max_spend_usd, 0.01, 'the admin API shows what the operator set');
    assert.equal(admin.customer_limits.max_spend_usd, 0.005);

    // the operator lifting their cap leaves the customer's own in force
    assert.equal((await tg.admin('PATCH', `/admin/keys/${key.id}`, { max_spend_usd: null })).status, 200);
    assert.equal((await consoleView(key.id)).max_spend_usd, '0.005');
    assert.equal(await statusOf(chat(key.secret, { model: 'gpt-4o', max_tokens: 1000 })), 402, 'the customer’s own $0.005 cap refuses a call that may cost $0.01');

    // the customer disables and enables their own key; the operator's rpm stays the ceiling
    assert.equal((await patchAsCustomer(key.id, { disabled: true })).status, 200);
    assert.equal(await statusOf(chat(key.secret)), 401);
    assert.equal((await patchAsCustomer(key.id, { disabled: false })).status, 200);
    assert.equal(await statusOf(chat(key.secret)), 200);
    const loosen = await patchAsCustomer(key.id, { rpm: 1000 });
    assert.equal(loosen.status, 403);
    assert.equal(loosen.body.error.param, 'rpm');
  });

  test('the operator’s model allowlist holds: the customer may narrow it, not widen it', async () => {
    const key = await newKey();
    assert.equal((await tg.admin('PATCH', `/admin/keys/${key.id}`, { models: ['gpt-4o-mini', 'gpt-4o'] })).status, 200);
    for (const models of [null, ['gpt-4o-mini', 'gpt-3.5-turbo-instruct']]) {
      const wider = await patchAsCustomer(key.id, { models });
      assert.equal(wider.status, 403, wider.text);
      assert.equal(wider.body.error.param, 'models');
    }
    assert.equal(await statusOf(chat(key.secret, { model: 'gpt-4o' })), 200);
    const narrower = await patchAsCustomer(key.id, { models: ['gpt-4o-mini'] });
    assert.equal(narrower.status, 200, narrower.text);
    assert.deepEqual(narrower.body.key.models, ['gpt-4o-mini']);
    assert.deepEqual(narrower.body.key.operator_limits.models, ['gpt-4o-mini', 'gpt-4o']);
    assert.equal(await statusOf(chat(key.secret, { model: 'gpt-4o' })), 404, 'outside the customer’s own allowlist');
    assert.equal(await statusOf(chat(key.secret, { model: 'gpt-4o-mini' })), 200);
    // the operator dropping their allowlist leaves the customer's
    assert.equal((await tg.admin('PATCH', `/admin/keys/${key.id}`, { models: null })).status, 200);
    assert.equal(await statusOf(chat(key.secret, { model: 'gpt-4o' })), 404);
  });

  test('an operator rpm and expiry hold on /v1 although the customer asks for none', async () => {
    const key = await newKey();
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal((await tg.admin('PATCH', `/admin/keys/${key.id}`, { rpm: 1, expires_at: expiry })).status, 200);
    for (const [field, body] of [
      ['rpm', { rpm: null }],
      ['expires_at', { expires_at: null }],
      ['expires_at', { expires_at: new Date(Date.now() + 7_200_000).toISOString() }],
      ['tpm', { tpm: 1000 }],
    ] as const) {
      const res = await patchAsCustomer(key.id, body);
      if (field === 'tpm') {
        assert.equal(res.status, 200, 'a limit the operator did not set is the customer’s to set');
        continue;
      }
      assert.equal(res.status, 403, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.param, field);
    }
    const view = await consoleView(key.id);
    assert.equal(view.rpm, 1);
    assert.equal(view.expires_at, expiry);
    assert.equal(view.tpm, 1000);
    assert.equal(view.operator_limits.tpm, null);
    assert.equal(await statusOf(chat(key.secret)), 200);
    assert.equal(await statusOf(chat(key.secret)), 429, 'the operator’s 1 request per minute');
  });
});
