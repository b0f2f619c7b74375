// The scale target: with 100,000 usage rows, the usage page shows its first page in under a
// second with at most three console API calls (session, chart from rollups, first page of rows).
// Measured in Chromium against the real gateway, on SQLite (the embedded default) and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { browserUnavailable, launchBrowser, signInInBrowser, type TestBrowser } from '../helpers/browser.ts';
import { postgresDatabase, sqliteDatabase, type TestDatabase } from '../helpers/databases.ts';
import { startConsoleGateway, type ConsoleCustomer, type ConsoleGateway } from '../helpers/console.ts';

const ROWS = 100_000;
const DAY = 86_400_000;
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small', 'gpt-3.5-turbo-instruct'];

for (const make of [sqliteDatabase, postgresDatabase]) {
  const database: TestDatabase = make('scale');
  describe(`usage page with ${ROWS.toLocaleString('en')} rows on ${database.name}`, { skip: browserUnavailable() }, () => {
    let tg: ConsoleGateway;
    let browser: TestBrowser;
    let customer: ConsoleCustomer;

    before(async () => {
      tg = await startConsoleGateway({ databaseUrl: database.url });
      customer = await tg.registerCustomer();
      const keyIds: string[] = [];
      for (const name of ['web', 'batch', 'mobile']) keyIds.push((await customer.client.post('/console/api/keys', { name })).body.key.id);
      const now = Date.now();
      // through the same write-behind path as live traffic, so the rollups are built as in production
      for (let i = 0; i < ROWS; i++) {
        const row: NewUsageRow = {
          request_id: `req_scale_${i}`,
          created_at: now - Math.floor(((ROWS - i) / ROWS) * 30 * DAY),
          account_id: customer.accountId,
          key_id: keyIds[i % 3]!,
          model: MODELS[i % 4]!,
          endpoint: i % 4 === 2 ? '/v1/embeddings' : '/v1/chat/completions',
          provider_id: tg.providerId ?? null,
          status: i % 50 === 0 ? 502 : 200,
          prompt_tokens: 100 + (i % 900),
          completion_tokens: i % 4 === 2 ? 0 : 20 + (i % 300),
          cached_tokens: 0,
          units: 0,
          cost_nano: 1_000 + (i % 10_000),
          latency_ms: 50 + (i % 2_000),
          estimated: 0,
          error_type: i % 50 === 0 ? 'server_error' : null,
          session_id: null,
        };
        tg.gateway.sync.recordUsage(row);
      }
      await tg.gateway.sync.now();
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await tg?.close();
      await database.drop();
    });

    // how long it takes is reported (t.diagnostic), not asserted: a timing target lives in a benchmark
    test('the first page shows 50 rows with at most three API calls (its time is reported)', async (t) => {
      const count = await tg.gateway.store.db.selectFrom('usage_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), ROWS);
      const page = await (await browser.context()).newPage();
      await signInInBrowser(page, tg.origin, customer.email);
      const measure = async (query: string) => {
        const calls: string[] = [];
        const listener = (request: { url(): string }) => {
          if (request.url().includes('/console/api/')) calls.push(new URL(request.url()).pathname);
        };
        page.on('request', listener);
        await page.goto(`${tg.origin}/console/usage${query}`, { waitUntil: 'commit' });
        // checked every animation frame, in the page: the time from the start of the navigation
        // until the first rows are in the document (and so drawn on the next frame)
        const handle = await page.waitForFunction(() => (document.querySelector('[data-testid=row-cost]') ? performance.now() : 0), undefined, { polling: 'raf' });
        const ms = (await handle.jsonValue()) as number;
        const chart = (await (await page.waitForFunction(() => (document.querySelector('.uplot canvas') ? performance.now() : 0), undefined, { polling: 'raf' })).jsonValue()) as number;
        page.off('request', listener);
        await page.waitForLoadState('networkidle');
        return { ms, chart, calls, rows: await page.getByTestId('row-cost').count() };
      };
      await measure(''); // warm the database's caches as a running server's would be
      const lastWeek = await measure('');
      const month = await measure(`?from=${new Date(Date.now() - 29 * DAY).toISOString().slice(0, 10)}&metric=requests`);
      const filtered = await measure(`?from=${new Date(Date.now() - 29 * DAY).toISOString().slice(0, 10)}&model=gpt-4o-mini&status=error`);
      const show = (r: { ms: number; chart: number }) => `${r.ms.toFixed(0)} ms (chart ${r.chart.toFixed(0)} ms)`;
      t.diagnostic(`${database.name}: last 7 days ${show(lastWeek)}, 30 days ${show(month)}, 30 days filtered ${show(filtered)}; API calls: ${lastWeek.calls.join(' ')}`);
      for (const run of [lastWeek, month, filtered]) {
        assert.equal(run.rows, 50, 'a first page of 50 rows');
        assert.ok(run.calls.length <= 3, `at most three API calls, got ${run.calls.join(', ')}`);
      }
      const older = performance.now();
      await page.getByRole('button', { name: /Older/ }).click();
      await page.getByText('Page 2').waitFor();
      t.diagnostic(`${database.name}: next page ${(performance.now() - older).toFixed(0)} ms`);
      const totals = await page.getByRole('region', { name: 'Totals for the filter' }).textContent();
      assert.match(totals ?? '', /Requests[\d,]+/);
    });
  });
}
