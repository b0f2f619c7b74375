// Accessibility and language: an axe-core scan of every main page finds no serious or critical
// issue; sign-in and key creation work from the keyboard alone; dialogs trap focus and give it
// back; the language switch turns the console Chinese and stays so.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { after, before, describe, test } from 'node:test';
import { createAdmin } from '../../src/console/services/auth.ts';
import { usersRepository } from '../../src/store/repositories/console-users.ts';
import { browserUnavailable, launchBrowser, signInInBrowser, type TestBrowser } from '../helpers/browser.ts';
import { uniqueEmail } from '../helpers/console-client.ts';
import { PASSWORD, startConsoleGateway, type ConsoleCustomer, type ConsoleGateway } from '../helpers/console.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

async function seriousViolations(page: Page): Promise<Violation[]> {
  // evaluated over the DevTools protocol, so the page's CSP (no inline script) does not apply
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`).join('\n');
}

describe('accessibility and language', { skip: browserUnavailable() }, () => {
  let tg: ConsoleGateway;
  let browser: TestBrowser;
  let customer: ConsoleCustomer;
  let opsEmail: string;

  before(async () => {
    tg = await startConsoleGateway();
    browser = await launchBrowser();
    customer = await tg.registerCustomer(0.5);
    const key = await customer.client.post('/console/api/keys', { name: 'scan me', rpm: 60, max_spend_usd: 2 });
    const client = new OpenAI({ apiKey: key.body.secret, baseURL: tg.baseURL });
    for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hello ${i}` }] });
    opsEmail = uniqueEmail('ops');
    await createAdmin({ users: usersRepository(tg.gateway.store.db) }, { email: opsEmail, password: PASSWORD });
  });
  after(async () => {
    await browser?.close();
    await tg?.close();
  });

  test('axe finds no serious issue on any main page', async () => {
    const page = await (await browser.context()).newPage();
    const failures: string[] = [];
    const scan = async (label: string) => {
      const found = await seriousViolations(page);
      if (found.length > 0) failures.push(`${label}:\n${describeViolations(found)}`);
    };
    for (const path of ['/login', '/register', '/operator-token']) {
      await page.goto(`${tg.origin}/console${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await scan(path);
    }
    await signInInBrowser(page, tg.origin, customer.email);
    for (const path of ['/', '/keys', '/usage', '/billing', '/models', '/settings']) {
      await page.goto(`${tg.origin}/console${path}`);
      await page.waitForLoadState('networkidle');
      await scan(path);
    }
    await page.goto(`${tg.origin}/console/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog').waitFor();
    await scan('/keys (create dialog)');

    const ops = await (await browser.context()).newPage();
    await signInInBrowser(ops, tg.origin, opsEmail);
    for (const path of ['/admin', '/admin/providers', '/admin/models', '/admin/accounts', `/admin/accounts/${customer.accountId}`, '/admin/codes', '/admin/usage', '/admin/settings']) {
      await ops.goto(`${tg.origin}/console${path}`);
      await ops.waitForLoadState('networkidle');
      const found = await seriousViolations(ops);
      if (found.length > 0) failures.push(`${path}:\n${describeViolations(found)}`);
    }
    await ops.goto(`${tg.origin}/console/admin/providers`);
    await ops.getByRole('button', { name: 'Add provider' }).click();
    await ops.getByRole('dialog').waitFor();
    const dialog = await seriousViolations(ops);
    if (dialog.length > 0) failures.push(`/admin/providers (dialog):\n${describeViolations(dialog)}`);
    assert.deepEqual(failures, []);
  });

  test('sign in and create a key with the keyboard alone; the dialog traps focus and returns it', async () => {
    const page = await (await browser.context()).newPage();
    await page.goto(`${tg.origin}/console/login`);
    const focusOn = async (label: string) => {
      for (let i = 0; i < 20; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate((l) => (document.activeElement as HTMLElement | null)?.innerText?.trim() === l, label)) return;
      }
      throw new Error(`could not tab to ${label}`);
    };
    await page.getByLabel('Email').focus();
    await page.keyboard.type(customer.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    await page.goto(`${tg.origin}/console/keys`);
    await page.getByRole('rowheader', { name: 'scan me' }).waitFor();
    await focusOn('Create key');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await dialog.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.closest('dialog') !== null), true, 'focus moves into the dialog');
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press(i % 5 === 4 ? 'Shift+Tab' : 'Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.closest('dialog') !== null), true, `focus left the dialog after ${i + 1} presses`);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.innerText.trim() === 'Create key', undefined, { timeout: 2000 }).catch(() => undefined);
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText.trim()), 'Create key', 'focus returns to the opener');

    // the whole flow from the keyboard: open, name, submit, copy-once dialog, done
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.type('keyboard key');
    let submitted = false;
    for (let i = 0; i < 20 && !submitted; i++) {
      await page.keyboard.press('Tab');
      submitted = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText.trim() === 'Create key' && document.activeElement?.closest('dialog') !== null);
    }
    assert.ok(submitted, 'the submit button is reachable by Tab');
    await page.keyboard.press('Enter');
    await page.getByTestId('new-secret').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('rowheader', { name: 'keyboard key' }).waitFor();
  });

  test('the language switch turns the console Chinese, and it stays Chinese', async () => {
    const page = await (await browser.context()).newPage();
    await signInInBrowser(page, tg.origin, customer.email);
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('heading', { name: '概览', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'API 密钥' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    await page.getByRole('link', { name: '账单' }).click();
    await page.getByRole('heading', { name: '账本' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: '账单', level: 1 }).waitFor();
    // the title follows the heading by a render (seen once in CI: read between the two)
    await page.waitForFunction(() => document.title.includes('账单'), undefined, { timeout: 5_000 }).catch(() => undefined);
    assert.match(await page.title(), /账单/);
    await page.getByLabel('语言').selectOption('en');
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
  });

  test('a Chinese browser gets Chinese from the start', async () => {
    const page = await (await browser.context({ locale: 'zh-CN' })).newPage();
    await page.goto(`${tg.origin}/console/login`);
    await page.getByRole('heading', { name: '登录', level: 1 }).waitFor();
  });
});
