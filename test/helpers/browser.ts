/// <reference lib="dom" />
// Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by playwright-core: no
// browser is ever downloaded. Flags keep it off the network (the machine has none) and quiet.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CONSOLE_DIST } from '../../src/console/static-files.ts';

export const CHROMIUM = process.env.MODELGATE_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Why browser tests cannot run here, or undefined when they can. */
export function browserUnavailable(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`;
  if (!existsSync(join(CONSOLE_DIST, 'index.html'))) return 'the console is not built: npm run build:console (npm install does)';
  return undefined;
}

export interface TestBrowser {
  browser: Browser;
  /** a fresh profile (cookies, storage) in English unless told otherwise */
  context(options?: { locale?: string }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const missing = browserUnavailable();
  if (missing) throw new Error(`browser tests cannot run: ${missing}`);
  // playwright gives the browser a new, empty profile directory of its own
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  return {
    browser,
    context: (options = {}) => browser.newContext({ locale: options.locale ?? 'en-US', viewport: { width: 1360, height: 900 }, timezoneId: 'UTC' }),
    close: () => browser.close(),
  };
}

/** Records every console API answer a page receives (to prove a secret never comes back). */
export function recordApiAnswers(page: Page): string[] {
  const bodies: string[] = [];
  page.on('response', async (response) => {
    if (!response.url().includes('/console/api/')) return;
    try {
      bodies.push(await response.text());
    } catch {
      // bodies of redirects and aborted requests are not available; nothing to record
    }
  });
  return bodies;
}

export async function registerInBrowser(page: Page, origin: string, email: string, password = 'correct horse battery'): Promise<void> {
  await page.goto(`${origin}/console/register`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

export async function signInInBrowser(page: Page, origin: string, email: string, password = 'correct horse battery'): Promise<void> {
  await page.goto(`${origin}/console/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith('/login'));
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** "$1,234.0000177" or "-$0.5" as shown by the console (en-US) → integer nano-dollars. */
export function nanoOfShown(text: string): number {
  const clean = text.replace(/[$,\s]/g, '');
  const negative = clean.startsWith('-');
  const [whole, fraction = ''] = clean.replace(/^[-+]/, '').split('.');
  const value = Number(whole) * 1e9 + Number(fraction.padEnd(9, '0'));
  return negative ? -value : value;
}

/** Integer nano-dollars of an API amount (number or exact decimal string). */
export function nanoOfUsd(usd: number | string): number {
  return nanoOfShown(typeof usd === 'number' ? usd.toFixed(9) : usd);
}
