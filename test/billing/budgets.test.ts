// Periodic budgets (contract §4): keys and accounts take budget_usd with budget_period (UTC day,
// ISO week, calendar month), enforced through the same holds as the balance; a spent budget
// answers 402 insufficient_quota naming the budget and its reset time (also x-modelgate-budget-reset);
// the views show budget_spent_usd. The period moves with the ledger's clock, never a sleep.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { periodEnd, periodStart } from '../../src/core/budget-period.ts';
import { nanoToUsd } from '../../src/core/money.ts';
import { startGatewayPair } from '../helpers/gateway-pair.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const DAY_MS = 86_400_000;

async function chat(g: TestGateway, key: string): Promise<{ status: number; body: any; reset: string | null }> {
  const res = await fetch(`${g.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: await res.json(), reset: res.headers.get('x-modelgate-budget-reset') };
}

/** Chats until refused (at most `limit` times): the 200s, then the refusal. */
async function chatUntilRefused(g: TestGateway, key: string, limit = 100) {
  let served = 0;
  for (let i = 0; i < limit; i++) {
    const answer = await chat(g, key);
    if (answer.status !== 200) return { served, refusal: answer };
    served++;
  }
  throw new Error(`never refused after ${limit} calls`);
}

/** The cost of one call (all calls here have the same prompt and answer), from a probe key's spend. */
async function costOfOneCall(g: TestGateway): Promise<number> {
  const probe = await g.customer(10);
  assert.equal((await chat(g, probe.key)).status, 200);
  await g.gateway.sync.now();
  const cost = g.gateway.ledger.keySpent(probe.keyId);
  assert.ok(cost > 0);
  return cost;
}

describe('periodic budgets on one instance', () => {
  let g: TestGateway;
  let perCall: number;
  before(async () => {
    g = await startTestGateway();
    perCall = await costOfOneCall(g);
  });
  after(async () => {
    g.gateway.ledger.clock = Date.now;
    await g.close();
  });

  test('a key budget spent answers 402 insufficient_quota naming the budget and its reset, also as a header; the key view shows the spend', async () => {
    const customer = await g.customer(10, { budget_usd: nanoToUsd(perCall * 4), budget_period: 'day' });
    const { served, refusal } = await chatUntilRefused(g, customer.key);
    assert.ok(served >= 1 && served <= 4, `served ${served}`);
    assert.equal(refusal.status, 402);
    assert.equal(refusal.body.error.type, 'insufficient_quota');
    assert.equal(refusal.body.error.code, 'insufficient_quota');
    const resets = new Date(periodEnd('day', Date.now())).toISOString();
    assert.match(refusal.body.error.message, /This API key's daily budget of \$/);
    assert.ok(refusal.body.error.message.includes(`resets at ${resets}`), refusal.body.error.message);
    assert.equal(refusal.reset, resets);

    await g.gateway.sync.now();
    const view = await g.admin('GET', `/admin/keys/${customer.keyId}`);
    assert.equal(view.status, 200);
    assert.equal(view.body.budget_usd, nanoToUsd(perCall * 4));
    assert.equal(view.body.budget_period, 'day');
    assert.equal(view.body.budget_spent_usd, nanoToUsd(perCall * served));
    assert.equal(view.body.budget_resets_at, resets);
    // the balance is untouched beyond what was spent
    await g.assertBillingInvariants(customer.accountId);
  });

  test('no overrun beyond one request: many parallel requests against a small budget', async () => {
    const budget = perCall * 5;
    const customer = await g.customer(10, { budget_usd: nanoToUsd(budget), budget_period: 'week' });
    const answers = await Promise.all([...Array(40)].map(() => chat(g, customer.key)));
    const ok = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 402);
    assert.ok(ok >= 1 && refused.length >= 1, `${ok} served, ${refused.length} refused`);
    for (const answer of refused) assert.match(answer.body.error.message, /weekly budget/);
    await g.gateway.sync.now();
    const spent = g.gateway.ledger.budget('key', customer.keyId)!.spentNano;
    assert.equal(spent, ok * perCall);
    assert.ok(spent <= budget + perCall, `spent ${spent} of ${budget}`);
    await g.assertBillingInvariants(customer.accountId);
  });

  test('the period rolls over: a new day starts at zero, in memory and in the row', async () => {
    const customer = await g.customer(10, { budget_usd: nanoToUsd(perCall * 2), budget_period: 'day' });
    await chatUntilRefused(g, customer.key);
    assert.equal((await chat(g, customer.key)).status, 402);

    const tomorrow = Date.now() + DAY_MS;
    g.gateway.ledger.clock = () => tomorrow;
    try {
      assert.equal(g.gateway.ledger.budget('key', customer.keyId)!.spentNano, 0);
      const view = await g.admin('GET', `/admin/keys/${customer.keyId}`);
      assert.equal(view.body.budget_spent_usd, 0);
      assert.equal((await chat(g, customer.key)).status, 200);
      await g.gateway.sync.now();
      const row = await g.gateway.repos.apiKeys.get(customer.keyId);
      assert.equal(row!.periodSpend.day.start, periodStart('day', tomorrow));
      assert.equal(row!.periodSpend.day.nano, perCall);
      assert.equal((await g.admin('GET', `/admin/keys/${customer.keyId}`)).body.budget_spent_usd, nanoToUsd(perCall));
    } finally {
      g.gateway.ledger.clock = Date.now;
    }
  });

  test('an account budget (PATCH /admin/accounts/{id}): weekly, refused with its reset, shown on the account; cleared with null', async () => {
    const customer = await g.customer(10);
    const missing = await g.admin('PATCH', `/admin/accounts/${customer.accountId}`, { budget_usd: 1 });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.param, 'budget_period');
    const set = await g.admin('PATCH', `/admin/accounts/${customer.accountId}`, { budget_usd: nanoToUsd(perCall * 3), budget_period: 'week' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.budget_period, 'week');
    assert.equal(set.body.budget_spent_usd, 0);

    const { served, refusal } = await chatUntilRefused(g, customer.key);
    assert.equal(refusal.status, 402);
    const resets = new Date(periodEnd('week', Date.now())).toISOString();
    assert.equal(new Date(resets).getUTCDay(), 1, 'weeks start on Monday');
    assert.match(refusal.body.error.message, /This account's weekly budget of \$/);
    assert.equal(refusal.reset, resets);
    await g.gateway.sync.now();
    const view = await g.admin('GET', `/admin/accounts/${customer.accountId}`);
    assert.equal(view.body.budget_usd, nanoToUsd(perCall * 3));
    assert.equal(view.body.budget_spent_usd, nanoToUsd(perCall * served));
    const row = await g.gateway.repos.accounts.get(customer.accountId);
    assert.equal(row!.periodSpend.week.nano, perCall * served);

    // next Monday: whole again
    const nextWeek = periodEnd('week', Date.now()) + 1000;
    g.gateway.ledger.clock = () => nextWeek;
    try {
      assert.equal((await chat(g, customer.key)).status, 200);
    } finally {
      g.gateway.ledger.clock = Date.now;
    }

    const cleared = await g.admin('PATCH', `/admin/accounts/${customer.accountId}`, { budget_usd: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.budget_usd, null);
    assert.equal(cleared.body.budget_period, null);
    assert.equal(cleared.body.budget_spent_usd, null);
    assert.equal((await chat(g, customer.key)).status, 200);
  });
});

test('the spend per period survives a restart (SQLite file, written by the flush thread)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-budgets-'));
  const databaseUrl = `sqlite:${join(dir, 'gate.db')}`;
  try {
    const first = await startTestGateway({ databaseUrl });
    let keyId: string;
    let spent: number;
    try {
      const customer = await first.customer(10, { budget_usd: 1, budget_period: 'month' });
      keyId = customer.keyId;
      for (let i = 0; i < 3; i++) assert.equal((await chat(first, customer.key)).status, 200);
      await first.gateway.sync.now();
      spent = first.gateway.ledger.budget('key', keyId)!.spentNano;
      assert.ok(spent > 0);
    } finally {
      await first.close();
    }
    const second = await startTestGateway({ databaseUrl, simulator: false });
    try {
      assert.equal(second.gateway.ledger.budget('key', keyId)!.spentNano, spent);
      assert.equal((await second.admin('GET', `/admin/keys/${keyId}`)).body.budget_spent_usd, nanoToUsd(spent));
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two instances (PostgreSQL + Redis) share one budget', async () => {
  const pair = await startGatewayPair('budgets');
  try {
    const perCall = await costOfOneCall(pair.a);
    const customer = await pair.a.customer(10, { budget_usd: nanoToUsd(perCall * 3), budget_period: 'week' });
    const { served } = await chatUntilRefused(pair.a, customer.key);
    await pair.a.gateway.sync.now();
    // B learns the spend from the rows the flush wrote (its own sync cycle)
    const started = Date.now();
    while (pair.b.gateway.ledger.budget('key', customer.keyId)?.spentNano !== perCall * served) {
      if (Date.now() - started > 20_000) throw new Error('instance B never saw the spend');
      await delay(50);
    }
    const onB = await chat(pair.b, customer.key);
    assert.equal(onB.status, 402, JSON.stringify(onB.body));
    assert.match(onB.body.error.message, /weekly budget/);
    assert.equal(onB.reset, new Date(periodEnd('week', Date.now())).toISOString());
    assert.equal((await pair.b.admin('GET', `/admin/keys/${customer.keyId}`)).body.budget_spent_usd, nanoToUsd(perCall * served));

    // both instances at once against one small budget: the cross-instance holds count it like the balance
    const shared = await pair.a.customer(10, { budget_usd: nanoToUsd(perCall * 4), budget_period: 'day' });
    while (!pair.b.gateway.keys.get(shared.keyId)) await delay(20);
    const answers = await Promise.all([...Array(12)].flatMap(() => [chat(pair.a, shared.key), chat(pair.b, shared.key)]));
    const ok = answers.filter((answer) => answer.status === 200).length;
    assert.ok(ok >= 1 && ok < answers.length, `${ok} of ${answers.length} served`);
    for (const answer of answers.filter((answer) => answer.status !== 200)) {
      assert.equal(answer.status, 402);
      assert.match(answer.body.error.message, /daily budget/);
      assert.ok(answer.reset);
    }
    await pair.a.gateway.sync.now();
    await pair.b.gateway.sync.now();
    const row = await pair.a.gateway.repos.apiKeys.get(shared.keyId);
    assert.equal(row!.periodSpend.day.nano, ok * perCall);
    assert.ok(row!.periodSpend.day.nano <= perCall * 4 + perCall, `spent ${row!.periodSpend.day.nano} of ${perCall * 4}`);
  } finally {
    await pair.close();
  }
});
