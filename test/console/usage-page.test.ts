// The usage page: filters narrow the chart, the totals, the rows and the CSV alike; the CSV a
// browser downloads equals the filtered rows, with a totals line.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { after, before, describe, test } from 'node:test';
import { browserUnavailable, launchBrowser, nanoOfUsd, signInInBrowser, type TestBrowser } from '../helpers/browser.ts';
import { startConsoleGateway, type ConsoleCustomer, type ConsoleGateway } from '../helpers/console.ts';

describe('usage page and CSV export', { skip: browserUnavailable() }, () => {
  let tg: ConsoleGateway;
  let browser: TestBrowser;
  let page: Page;
  let customer: ConsoleCustomer;
  let keys: Array<{ id: string; secret: string }>;

  before(async () => {
    tg = await startConsoleGateway();
    customer = await tg.registerCustomer(5);
    keys = [];
    for (const name of ['alpha', 'beta']) {
      const created = await customer.client.post('/console/api/keys', { name });
      keys.push({ id: created.body.key.id, secret: created.body.secret });
    }
    // alpha: 3 × gpt-4o-mini, 1 × gpt-4o, 1 × embeddings; beta: 2 × gpt-4o-mini and one unknown model (404)
    const a = new OpenAI({ apiKey: keys[0]!.secret, baseURL: tg.baseURL });
    const b = new OpenAI({ apiKey: keys[1]!.secret, baseURL: tg.baseURL, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await a.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `a${i}` }] });
    await a.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a big one' }] });
    await a.embeddings.create({ model: 'text-embedding-3-small', input: 'embed me' });
    for (let i = 0; i < 2; i++) await b.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `b${i}` }] });
    browser = await launchBrowser();
    page = await (await browser.context({})).newPage();
    await signInInBrowser(page, tg.origin, customer.email);
  });
  after(async () => {
    await browser?.close();
    await tg?.close();
  });

  test('filters apply to totals, rows and the URL', async () => {
    await page.goto(`${tg.origin}/console/usage`);
    await page.getByTestId('row-cost').first().waitFor();
    assert.equal(await page.getByTestId('row-cost').count(), 7);
    await page.getByLabel('Key').selectOption({ label: 'alpha' });
    await page.getByLabel('Model', { exact: true }).selectOption('gpt-4o-mini');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=row-cost]').length === 3);
    assert.match(page.url(), /key=key_.*model=gpt-4o-mini|model=gpt-4o-mini.*key=key_/);
    const totals = page.getByRole('region', { name: 'Totals for the filter' });
    // the totals come from their own call: wait for them to reflect the filter
    await page.waitForFunction(() => /Requests3/.test(document.querySelector('[aria-label="Totals for the filter"]')?.textContent ?? ''), undefined, { timeout: 5000 }).catch(() => undefined);
    assert.match((await totals.textContent()) ?? '', /Requests3/);
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=row-cost]').length === 3);
  });

  test('the CSV equals the filtered rows, with exact totals', async () => {
    await page.goto(`${tg.origin}/console/usage?key=${keys[0]!.id}&endpoint=${encodeURIComponent('/v1/chat/completions')}`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=row-cost]').length === 4);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.trim().split('\r\n');
    assert.equal(lines[0], 'created_at,request_id,key_id,model,endpoint,status,prompt_tokens,completion_tokens,cached_tokens,units,cost_usd,latency_ms');
    const body = lines.slice(1, -1).map((l) => l.split(','));
    const totals = lines.at(-1)!.split(',');

    const rows = (await customer.client.get(`/console/api/usage/rows?key_id=${keys[0]!.id}&endpoint=/v1/chat/completions&limit=500`)).body.data;
    assert.equal(body.length, rows.length);
    assert.equal(body.length, 4);
    body.forEach((cells, i) => {
      assert.equal(cells[1], rows[i].request_id);
      assert.equal(cells[2], keys[0]!.id);
      assert.equal(cells[3], rows[i].model);
      assert.equal(cells[10], rows[i].cost_usd);
    });
    const admin = (await tg.admin('GET', `/admin/usage?key_id=${keys[0]!.id}&limit=100`)).body.data.filter((r: { endpoint: string }) => r.endpoint === '/v1/chat/completions');
    const adminTotal = admin.reduce((s: number, r: { cost_usd: number }) => s + nanoOfUsd(r.cost_usd), 0);
    assert.equal(totals[0], 'TOTAL (4 requests)');
    assert.equal(nanoOfUsd(totals[10]!), adminTotal, 'the CSV total is the exact sum');
    assert.equal(Number(totals[6]), rows.reduce((s: number, r: { prompt_tokens: number }) => s + r.prompt_tokens, 0));
  });

  test('failed requests are counted and can be filtered', async () => {
    const b = new OpenAI({ apiKey: keys[1]!.secret, baseURL: tg.baseURL, maxRetries: 0 });
    tg.sim!.enqueue({ kind: 'status', status: 400, message: 'bad request upstream' });
    await assert.rejects(b.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'bad' }] }));
    const failed = (await customer.client.get('/console/api/usage/rows?status=error')).body.data;
    const series = (await customer.client.get('/console/api/usage/series?status=error')).body;
    assert.equal(series.totals.requests, failed.length);
    assert.equal(failed.length, 1);
    assert.ok(failed.every((r: { status: number }) => r.status >= 400));
  });
});
