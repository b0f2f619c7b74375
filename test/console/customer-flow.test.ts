// A new customer in a real browser against the real gateway and the OpenAI simulator: register,
// create a key (shown once, then nowhere), call with the official SDK, see the exact charge on the
// usage page and in the balance, disable the key from the UI, run out of money.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { after, before, describe, test } from 'node:test';
import { browserUnavailable, launchBrowser, nanoOfShown, nanoOfUsd, recordApiAnswers, registerInBrowser, type TestBrowser } from '../helpers/browser.ts';
import { uniqueEmail } from '../helpers/console-client.ts';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';

describe('customer console in a browser', { skip: browserUnavailable() }, () => {
  let tg: ConsoleGateway;
  let browser: TestBrowser;
  let page: Page;
  let accountId: string;
  let secret: string;
  let keyName: string;

  before(async () => {
    tg = await startConsoleGateway();
    browser = await launchBrowser();
    page = await (await browser.context()).newPage();
  });
  after(async () => {
    await browser?.close();
    await tg?.close();
  });

  const balanceShown = async () => {
    await page.goto(`${tg.origin}/console/`);
    // the card reads to cents; the exact balance is on hover
    return nanoOfShown((await page.getByTestId('balance').getAttribute('title')) ?? '');
  };

  test('register and land on the overview, with the base URL including /v1', async () => {
    await registerInBrowser(page, tg.origin, uniqueEmail('browser'));
    assert.equal(new URL(page.url()).pathname, '/console/');
    assert.equal(await page.getByTestId('base-url').textContent(), `${tg.origin}/v1`);
    accountId = await page.evaluate(async () => (await (await fetch('/console/api/session')).json()).user.account_id);
    assert.match(accountId, /^acct_/);
    assert.equal((await tg.admin('POST', `/admin/accounts/${accountId}/credit`, { amount_usd: 3, note: 'test money' })).status, 200);
  });

  test('the session cookie is HttpOnly and SameSite=Strict in the browser, and a page of another origin cannot use it', async () => {
    const cookies = await page.context().cookies(`${tg.origin}/console/api/session`);
    const session = cookies.find((c) => c.name === 'mg_session');
    assert.ok(session);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/console/api');
    assert.equal(await page.evaluate(() => document.cookie.includes('mg_session')), false, 'scripts cannot read it');

    // another origin (same host, other port: same-site, so the cookie does travel) posts a form
    // and a fetch at the console API; both are refused and nothing is created
    const evil: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id="f" method="POST" action="${tg.origin}/console/api/keys" enctype="text/plain"><input name='{"name":"evil","x":"' value='"}'></form>
        <script>fetch("${tg.origin}/console/api/keys", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: '{"name":"evil-fetch"}' }).catch(() => 0); setTimeout(() => document.getElementById("f").submit(), 200);</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const port = (evil.address() as { port: number }).port;
      const attacker = await page.context().newPage();
      const answers: number[] = [];
      attacker.on('response', (r) => {
        if (r.url().includes('/console/api/keys')) answers.push(r.status());
      });
      await attacker.goto(`http://127.0.0.1:${port}/`);
      await attacker.waitForURL((url) => url.href.includes('/console/api/keys'), { timeout: 5000 });
      assert.ok(answers.includes(403) || answers.includes(415), `refused, got ${answers.join(',')}`);
      await attacker.close();
    } finally {
      evil.close();
    }
    const keys = await tg.gateway.store.db.selectFrom('api_keys').select('name').where('account_id', '=', accountId).execute();
    assert.deepEqual(keys, [], 'no key was created by the other origin');
  });

  test('a new key is shown once, then found nowhere in the page or any console API answer', async () => {
    await page.goto(`${tg.origin}/console/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    keyName = 'browser key';
    await dialog.getByLabel('Name').fill(keyName);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    assert.match(secret, /^sk-[A-Za-z0-9]{48}$/);
    await page.getByRole('button', { name: 'I have copied it' }).click();

    const answers = recordApiAnswers(page);
    await page.reload();
    await page.getByRole('rowheader', { name: keyName }).waitFor();
    for (const path of ['/', '/keys', '/usage', '/billing', '/models', '/settings']) {
      await page.goto(`${tg.origin}/console${path}`);
      await page.waitForLoadState('networkidle');
      assert.ok(!(await page.content()).includes(secret), `the key is in the page ${path}`);
    }
    assert.ok(answers.length >= 6);
    for (const body of answers) assert.ok(!body.includes(secret) && !body.includes(secret.slice(3, 20)), 'a console API answer carries the key');
    const db = await tg.gateway.store.db.selectFrom('api_keys').selectAll().execute();
    assert.ok(db.every((row) => !Object.values(row).some((v) => String(v).includes(secret.slice(3)))), 'stored only as a hash');
  });

  test('a call with the official client shows on the usage page at exactly the admin API cost, and the balance drops by it', async () => {
    const before = await balanceShown();
    const client = new OpenAI({ apiKey: secret, baseURL: tg.baseURL });
    const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What does the console show?' }] });
    assert.ok(reply.choices[0]?.message.content);

    const admin = await tg.admin('GET', `/admin/usage?account_id=${accountId}&limit=5`);
    assert.equal(admin.body.data.length, 1);
    const cost = nanoOfUsd(admin.body.data[0].cost_usd as number);
    assert.ok(cost > 0);

    await page.goto(`${tg.origin}/console/usage`);
    const shown = page.getByTestId('row-cost');
    await shown.first().waitFor();
    assert.equal(await shown.count(), 1);
    assert.equal(nanoOfShown((await shown.first().getAttribute('title')) ?? ''), cost, 'the usage table has the exact charge on hover');
    assert.equal(await shown.first().textContent(), cost < 10_000_000 ? '<$0.01' : `$${(Math.round(cost / 10_000_000) / 100).toFixed(2)}`, 'and reads to cents');
    const row = page.getByRole('row').filter({ hasText: 'gpt-4o-mini' });
    assert.match((await row.textContent()) ?? '', new RegExp(`${reply.usage!.prompt_tokens} / ${reply.usage!.completion_tokens}`));
    await page.goto(`${tg.origin}/console/billing`);
    assert.equal(nanoOfShown((await page.getByTestId('ledger-amount').first().textContent()) ?? ''), -cost, 'the ledger shows the charge in full');

    assert.equal(await balanceShown(), before - cost, 'the balance dropped by exactly the charge');
    await tg.assertBillingInvariants(accountId);
  });

  test('disabling the key in the UI gets 401 from the client within a second', async () => {
    await page.goto(`${tg.origin}/console/keys`);
    const client = new OpenAI({ apiKey: secret, baseURL: tg.baseURL, maxRetries: 0 });
    await client.models.list();
    const answered = page.waitForResponse((r) => r.url().includes('/console/api/keys/') && r.request().method() === 'PATCH');
    await page.getByRole('button', { name: `Disable ${keyName}` }).click();
    assert.equal((await answered).status(), 200);
    const start = Date.now();
    let status = 0;
    while (Date.now() - start < 1000) {
      status = await client.models.list().then(
        () => 200,
        (e: { status?: number }) => e.status ?? 0,
      );
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 401, 'the disabled key is refused within a second');
    await page.getByText('Disabled', { exact: true }).waitFor();
    await page.getByRole('button', { name: `Enable ${keyName}` }).click();
    await page.getByRole('button', { name: `Disable ${keyName}` }).waitFor();
  });

  test('an empty balance answers 402 and the overview shows the banner', async () => {
    const balance = nanoOfUsd((await tg.admin('GET', `/admin/accounts/${accountId}`)).body.balance_usd as number);
    await tg.admin('POST', `/admin/accounts/${accountId}/credit`, { amount_usd: -balance / 1e9, note: 'spend it all' });
    const client = new OpenAI({ apiKey: secret, baseURL: tg.baseURL, maxRetries: 0 });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }), (e: { status?: number; code?: string }) => e.status === 402 && e.code === 'insufficient_quota');
    await page.goto(`${tg.origin}/console/`);
    const banner = page.getByTestId('low-balance');
    await banner.waitFor();
    assert.match((await banner.textContent()) ?? '', /used up.*402/);
    assert.equal(await page.getByTestId('balance').textContent(), '$0.00');
  });
});
