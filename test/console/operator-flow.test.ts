// An operator and a customer, each in their own browser profile: credit with a note shows in
// the customer's ledger (which adds up to the balance), a redemption code works once, a saved
// provider never gives its key back, a price change applies to the next request, and the
// customer cannot reach operator pages or their API.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { after, before, describe, test } from 'node:test';
import { createAdmin } from '../../src/console/services/auth.ts';
import { usersRepository } from '../../src/store/repositories/console-users.ts';
import { browserUnavailable, launchBrowser, nanoOfShown, nanoOfUsd, recordApiAnswers, signInInBrowser, type TestBrowser } from '../helpers/browser.ts';
import { uniqueEmail } from '../helpers/console-client.ts';
import { PASSWORD, startConsoleGateway, type ConsoleCustomer, type ConsoleGateway } from '../helpers/console.ts';

describe('operator console in a browser', { skip: browserUnavailable() }, () => {
  let tg: ConsoleGateway;
  let browser: TestBrowser;
  let ops: Page;
  let shopper: Page;
  let customer: ConsoleCustomer;
  let secret: string;

  before(async () => {
    tg = await startConsoleGateway();
    browser = await launchBrowser();
    const email = uniqueEmail('ops');
    await createAdmin({ users: usersRepository(tg.gateway.store.db) }, { email, password: PASSWORD, name: 'Olga Operator' });
    ops = await (await browser.context()).newPage();
    await signInInBrowser(ops, tg.origin, email);
    customer = await tg.registerCustomer(1);
    secret = (await customer.client.post('/console/api/keys', { name: 'shop' })).body.secret;
    shopper = await (await browser.context()).newPage();
    await signInInBrowser(shopper, tg.origin, customer.email);
  });
  after(async () => {
    await browser?.close();
    await tg?.close();
  });

  test('an operator lands on the operator overview', async () => {
    assert.equal(new URL(ops.url()).pathname, '/console/admin');
    await ops.getByRole('heading', { name: 'Operator overview' }).waitFor();
    await ops.getByRole('heading', { name: 'Provider health' }).waitFor();
  });

  test('credit with a note shows in the customer ledger, and the ledger sums to the balance', async () => {
    await ops.goto(`${tg.origin}/console/admin/accounts`);
    await ops.getByLabel('Search').fill(customer.email);
    await ops.getByRole('button', { name: 'Search' }).click();
    await ops.getByRole('link', { name: customer.email }).click();
    await ops.getByRole('heading', { name: 'Credit or debit' }).waitFor();
    await ops.getByLabel('Amount (USD)').fill('4.2');
    await ops.getByLabel('Note').fill('wire transfer 2026-11');
    await ops.getByRole('button', { name: 'Apply' }).click();
    await ops.getByText('$4.20 applied. Balance: $5.20.').waitFor();
    await ops.getByTestId('account-balance').filter({ hasText: /^\$5\.20$/ }).waitFor();

    await shopper.goto(`${tg.origin}/console/billing`);
    await shopper.getByText(/wire transfer 2026-11/).waitFor();
    const amounts = await shopper.getByTestId('ledger-amount').allTextContents();
    const balances = await shopper.getByTestId('ledger-balance').allTextContents();
    const balance = nanoOfShown((await shopper.getByTestId('billing-balance').textContent()) ?? '');
    assert.equal(balance, 5_200_000_000);
    assert.equal(nanoOfShown(amounts[0]!), 4_200_000_000);
    assert.equal(amounts.reduce((s, a) => s + nanoOfShown(a), 0), balance, 'the ledger sums to the balance');
    assert.equal(nanoOfShown(balances[0]!), balance, 'the newest running balance is the balance');
  });

  test('a redemption code made in the console works once', async () => {
    await ops.goto(`${tg.origin}/console/admin/codes`);
    await ops.getByRole('button', { name: 'Create codes' }).click();
    const dialog = ops.getByRole('dialog', { name: 'Create codes' });
    await dialog.getByLabel('Amount (USD)').fill('1.5');
    await dialog.getByLabel('How many').fill('2');
    await dialog.getByLabel('Batch name').fill('conference');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const codes = ((await ops.getByTestId('created-codes').textContent()) ?? '').split('\n');
    assert.equal(codes.length, 2);
    await ops.getByRole('button', { name: 'Done' }).click();

    await shopper.goto(`${tg.origin}/console/billing`);
    await shopper.getByLabel('Code').fill(codes[0]!);
    await shopper.getByRole('button', { name: 'Redeem' }).click();
    await shopper.getByText('$1.50 added to your balance.').waitFor();
    await shopper.getByText(/^\$6\.70$/).first().waitFor();
    await shopper.getByLabel('Code').fill(codes[0]!);
    await shopper.getByRole('button', { name: 'Redeem' }).click();
    await shopper.getByRole('alert').filter({ hasText: 'This code is not valid' }).waitFor();
    assert.equal(await shopper.getByTestId('billing-balance').textContent(), '$6.70');

    await ops.reload();
    const row = ops.getByRole('row').filter({ hasText: codes[0]! });
    await row.getByText('Redeemed').waitFor();
    assert.match((await row.textContent()) ?? '', new RegExp(customer.accountId));
  });

  test('a saved provider never returns its key (page or API), and its test button works', async () => {
    const answers = recordApiAnswers(ops);
    const upstreamKey = 'sim-upstream-key';
    await ops.goto(`${tg.origin}/console/admin/providers`);
    await ops.getByRole('button', { name: 'Add provider' }).click();
    const dialog = ops.getByRole('dialog', { name: 'Add provider' });
    await dialog.getByLabel('Name').fill('second-sim');
    await dialog.getByLabel('Base URL').fill(tg.sim!.baseUrl);
    await dialog.getByLabel('Upstream key').fill(upstreamKey);
    await dialog.getByLabel('Models').fill('gpt-4o-mini\ngpt-4o');
    await dialog.getByLabel('Priority').fill('-5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const row = ops.getByRole('row').filter({ hasText: 'second-sim' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Test' }).click();
    await row.getByText(/answered in \d+ ms/).waitFor();

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = ops.getByRole('dialog', { name: 'Edit provider' });
    assert.equal(await edit.getByLabel('Upstream key').inputValue(), '', 'the key is not put back in the form');
    await edit.getByLabel('Weight').fill('3');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.getByText('-5 / 3').waitFor();
    await row.getByRole('button', { name: 'Test' }).click();
    await row.getByText(/answered in \d+ ms/).waitFor();

    await ops.reload();
    await ops.getByRole('row').filter({ hasText: 'second-sim' }).waitFor();
    assert.ok(!(await ops.content()).includes(upstreamKey));
    assert.ok(answers.length >= 3);
    for (const body of answers) assert.ok(!body.includes(upstreamKey), 'an API answer carries the upstream key');
    const adminView = await tg.admin('GET', '/admin/providers');
    assert.ok(!JSON.stringify(adminView.body).includes(upstreamKey));
  });

  test('a price changed in the console applies to the next request', async () => {
    await ops.goto(`${tg.origin}/console/admin/models`);
    await ops.getByRole('button', { name: 'Edit gpt-4o', exact: true }).click();
    const dialog = ops.getByRole('dialog', { name: 'Prices of gpt-4o' });
    await dialog.getByLabel('Input, per 1M tokens', { exact: true }).fill('100');
    await dialog.getByLabel('Cached input, per 1M tokens').fill('');
    await dialog.getByLabel('Output, per 1M tokens').fill('300');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const row = ops.getByRole('row').filter({ has: ops.getByRole('rowheader', { name: 'gpt-4o', exact: true }) });
    await row.getByText('Operator').waitFor();
    assert.match((await row.textContent()) ?? '', /\$100\.00.*\$300\.00/);

    const client = new OpenAI({ apiKey: secret, baseURL: tg.baseURL });
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'price check' }], max_tokens: 20 });
    const usage = await tg.admin('GET', `/admin/usage?account_id=${customer.accountId}&model=gpt-4o&limit=1`);
    const expected = reply.usage!.prompt_tokens * 100_000 + reply.usage!.completion_tokens * 300_000;
    assert.equal(nanoOfUsd(usage.body.data[0].cost_usd as number), expected);
  });

  test('a customer cannot reach operator pages or their API', async () => {
    await shopper.goto(`${tg.origin}/console/admin/providers`);
    await shopper.getByRole('heading', { name: 'Not allowed' }).waitFor();
    assert.equal(await shopper.getByRole('link', { name: 'Providers' }).count(), 0, 'no operator navigation');
    const statuses = await shopper.evaluate(async () =>
      Promise.all(['/console/api/admin/providers', '/console/api/admin/accounts', '/console/api/admin/overview'].map(async (p) => (await fetch(p)).status)),
    );
    assert.deepEqual(statuses, [403, 403, 403]);
    const write = await shopper.evaluate(async (accountId) => {
      const session = await (await fetch('/console/api/session')).json();
      const res = await fetch(`/console/api/admin/accounts/${accountId}/credit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ amount_usd: 1000, note: 'me' }),
      });
      return res.status;
    }, customer.accountId);
    assert.equal(write, 403);
  });
});
