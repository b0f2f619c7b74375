// The budget lines in a real browser: a key's "spent $x of $y this week, resets …" on the keys page,
// the account's on the overview, and the key form setting the customer's own budget.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { after, before, describe, test } from 'node:test';
import { browserUnavailable, launchBrowser, registerInBrowser, type TestBrowser } from '../helpers/browser.ts';
import { uniqueEmail } from '../helpers/console-client.ts';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';

describe('budgets in the console, in a browser', { skip: browserUnavailable() }, () => {
  let tg: ConsoleGateway;
  let browser: TestBrowser;
  let page: Page;
  let accountId: string;

  before(async () => {
    tg = await startConsoleGateway();
    browser = await launchBrowser();
    page = await (await browser.context()).newPage();
    await registerInBrowser(page, tg.origin, uniqueEmail('budget'));
    accountId = await page.evaluate(async () => (await (await fetch('/console/api/session')).json()).user.account_id);
  });
  after(async () => {
    await browser?.close();
    await tg?.close();
  });

  test('the keys page shows spend against a key budget; the overview the account’s', async () => {
    const key = await tg.admin('POST', `/admin/accounts/${accountId}/keys`, { name: 'weekly', budget_usd: 5, budget_period: 'week' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    assert.equal((await tg.admin('PATCH', `/admin/accounts/${accountId}`, { budget_usd: 20, budget_period: 'month' })).status, 200);

    await page.goto(`${tg.origin}/console/keys`);
    const row = page.getByRole('row').filter({ hasText: 'weekly' });
    await row.getByText(/spent \$0\.00 of \$5\.00 this week, resets/).waitFor();
    assert.match((await row.textContent()) ?? '', /Budget \(USD\) \$5\.00 per week/, 'the operator’s budget is named among its limits');

    await page.goto(`${tg.origin}/console/`);
    assert.match((await page.getByTestId('account-budget').textContent()) ?? '', /^spent \$0\.00 of \$20\.00 this month, resets /);
  });

  test('the key form sets the customer’s own budget, in the operator’s period', async () => {
    await page.goto(`${tg.origin}/console/keys`);
    const row = page.getByRole('row').filter({ hasText: 'weekly' });
    await row.getByRole('button', { name: /Edit/ }).click();
    await page.locator('input[name="budget_usd"]').fill('2');
    assert.equal(await page.locator('select[name="budget_period"]').inputValue(), 'week');
    await page.getByRole('button', { name: /Save/ }).click();
    await row.getByText(/spent \$0\.00 of \$2\.00 this week/).waitFor();
    const listed = (await tg.admin('GET', `/admin/accounts/${accountId}/keys`)).body.data.find((k: { name: string }) => k.name === 'weekly');
    assert.deepEqual([listed.budget_usd, listed.customer_limits.budget_usd, listed.customer_limits.budget_period], [5, 2, 'week']);
  });
});
