// Budgets in the console (contract §4): a customer sets their own key's budget, only within the
// operator's (same period, no larger, never none above it); the views show spend against the
// budget that applies, and the overview shows the account's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startConsoleGateway, type ConsoleCustomer, type ConsoleGateway } from '../helpers/console.ts';

describe('budgets in the console', () => {
  let tg: ConsoleGateway;
  let customer: ConsoleCustomer;
  before(async () => {
    tg = await startConsoleGateway();
    customer = await tg.registerCustomer(5);
  });
  after(async () => {
    await tg.close();
  });

  const newKey = async (body: Record<string, unknown> = {}) => {
    const created = await customer.client.post('/console/api/keys', { name: 'budgeted', ...body });
    assert.equal(created.status, 201, created.text);
    return { id: created.body.key.id as string, secret: created.body.secret as string, view: created.body.key };
  };
  const patchAsCustomer = (id: string, body: unknown) => customer.client.call('PATCH', `/console/api/keys/${id}`, body);
  const chat = (secret: string) =>
    fetch(`${tg.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });

  test('a customer sets a budget on their own key; the list shows spend against it', async () => {
    const key = await newKey({ budget_usd: 1, budget_period: 'day' });
    assert.equal(Number(key.view.budget_usd), 1);
    assert.equal(key.view.budget_period, 'day');
    assert.equal(Number(key.view.own_limits.budget_usd), 1);
    assert.equal(key.view.operator_limits.budget_usd, null);
    assert.equal((await chat(key.secret)).status, 200);
    await tg.gateway.sync.now();
    const listed = (await customer.client.get('/console/api/keys')).body.data.find((k: { id: string }) => k.id === key.id);
    assert.ok(Number(listed.budget_spent_usd) > 0, JSON.stringify(listed));
    assert.equal(listed.budget_spent_usd, listed.spent_usd);
    assert.ok(listed.budget_resets_at);
    // a budget without its period is refused
    const noPeriod = await customer.client.post('/console/api/keys', { name: 'no period', budget_usd: 1 });
    assert.equal(noPeriod.status, 400, noPeriod.text);
    assert.equal(noPeriod.body.error.param, 'budget_period');
  });

  test('under the operator’s budget the customer may tighten, never loosen', async () => {
    const key = await newKey();
    const imposed = await tg.admin('PATCH', `/admin/keys/${key.id}`, { budget_usd: 1, budget_period: 'week' });
    assert.equal(imposed.status, 200, JSON.stringify(imposed.body));
    assert.equal(imposed.body.budget_usd, 1);
    assert.equal(imposed.body.budget_period, 'week');
    assert.equal(imposed.body.budget_spent_usd, 0);

    for (const [body, param] of [
      [{ budget_usd: 2 }, 'budget_usd'],
      [{ budget_usd: null }, 'budget_usd'],
      [{ budget_usd: 0.5, budget_period: 'month' }, 'budget_period'],
      [{ budget_usd: 0.5, budget_period: 'day' }, 'budget_period'],
    ] as const) {
      const res = await patchAsCustomer(key.id, body);
      assert.equal(res.status, 403, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.param, param);
      assert.equal(res.body.error.code, 'operator_limit');
    }

    // tighter, in the operator's period (named or not)
    const tighter = await patchAsCustomer(key.id, { budget_usd: 0.25 });
    assert.equal(tighter.status, 200, tighter.text);
    assert.equal(Number(tighter.body.key.budget_usd), 0.25, 'what applies is the tighter budget');
    assert.equal(tighter.body.key.budget_period, 'week');
    assert.equal(Number(tighter.body.key.own_limits.budget_usd), 0.25);
    assert.equal(Number(tighter.body.key.operator_limits.budget_usd), 1);
    const admin = await tg.admin('GET', `/admin/keys/${key.id}`);
    assert.equal(admin.body.budget_usd, 1, 'the admin API shows what the operator set');
    assert.equal(admin.body.customer_limits.budget_usd, 0.25);
    assert.equal((await patchAsCustomer(key.id, { budget_usd: 0.1, budget_period: 'week' })).status, 200);

    // a spent customer budget refuses on /v1 like the operator's
    assert.equal((await patchAsCustomer(key.id, { budget_usd: 0 })).status, 200);
    const refused = await chat(key.secret);
    assert.equal(refused.status, 402);
    assert.ok(refused.headers.get('x-modelgate-budget-reset'));
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /weekly budget of \$0\.00 is spent/);
  });

  test('the overview shows the account’s budget and its spend', async () => {
    const set = await tg.admin('PATCH', `/admin/accounts/${customer.accountId}`, { budget_usd: 3, budget_period: 'month' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const overview = await customer.client.get('/console/api/overview');
    assert.equal(overview.status, 200);
    assert.equal(Number(overview.body.budget_usd), 3);
    assert.equal(overview.body.budget_period, 'month');
    assert.ok(Number(overview.body.budget_spent_usd) > 0, 'the first test spent on this account this month');
    assert.ok(overview.body.budget_resets_at);
  });
});
