// `npm run screenshots`: the console's main pages, in English (and one in Chinese), with a few
// weeks of plausible traffic, written to docs/console/*.png. History is written through the
// same flush as live traffic (charges and usage rows together), today's calls go through the
// gateway with the official SDK.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { costOf } from '../../src/core/pricing.ts';
import { createAdmin } from '../../src/console/services/auth.ts';
import { usersRepository } from '../../src/store/repositories/console-users.ts';
import { emptyUsage } from '../../src/core/usage.ts';
import { ledgerRepository, type LedgerEntry } from '../../src/store/repositories/ledger.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { launchBrowser, signInInBrowser } from '../helpers/browser.ts';
import { PASSWORD, startConsoleGateway } from '../helpers/console.ts';
import { ConsoleClient } from '../helpers/console-client.ts';

const OUT = fileURLToPath(new URL('../../docs/console/', import.meta.url));
const DAY = 86_400_000;
mkdirSync(OUT, { recursive: true });

const tg = await startConsoleGateway();
const gateway = tg.gateway;
await createAdmin({ users: usersRepository(gateway.store.db) }, { email: 'olga@modelgate.example', password: PASSWORD, name: 'Olga Petrova' });

interface Seeded {
  client: ConsoleClient;
  accountId: string;
  keys: Array<{ id: string; secret: string; name: string }>;
}

async function customer(name: string, email: string, creditUsd: number, keyNames: string[]): Promise<Seeded> {
  const client = new ConsoleClient(tg.origin);
  const res = await client.register(email, PASSWORD, { name });
  const accountId = res.body.user.account_id as string;
  await tg.admin('POST', `/admin/accounts/${accountId}/credit`, { amount_usd: creditUsd, note: 'Prepaid — invoice 2026-0117' });
  const keys = [];
  for (const keyName of keyNames) {
    const created = await client.post('/console/api/keys', { name: keyName, ...(keyName === 'staging' && { rpm: 120, max_spend_usd: 25 }) });
    keys.push({ id: created.body.key.id, secret: created.body.secret, name: keyName });
  }
  return { client, accountId, keys };
}

const acme = await customer('Acme Robotics', 'alice@acme.example', 250, ['production backend', 'staging', 'batch jobs']);
const globex = await customer('Globex', 'hank@globex.example', 80, ['api']);
const initech = await customer('Initech', 'peter@initech.example', 40, ['reports']);

// three weeks of history, busier on weekdays, growing
const MODELS = [
  { id: 'gpt-4o-mini', share: 0.55, prompt: 900, completion: 350 },
  { id: 'gpt-4o', share: 0.25, prompt: 1400, completion: 500 },
  { id: 'text-embedding-3-small', share: 0.2, prompt: 600, completion: 0 },
];
let seed = 42;
const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
const entries: LedgerEntry[] = [];
const usage: NewUsageRow[] = [];
for (const [who, scale] of [[acme, 1], [globex, 0.45], [initech, 0.2]] as const) {
  for (let day = 21; day >= 1; day--) {
    const weekday = new Date(Date.now() - day * DAY).getUTCDay() % 6 !== 0;
    const requests = Math.round((weekday ? 60 : 22) * scale * (1 + (21 - day) / 18) * (0.8 + rand() * 0.4));
    for (let i = 0; i < requests; i++) {
      const pick = rand();
      const model = pick < MODELS[0]!.share ? MODELS[0]! : pick < MODELS[0]!.share + MODELS[1]!.share ? MODELS[1]! : MODELS[2]!;
      const key = who.keys[Math.floor(rand() * who.keys.length)]!;
      const created = Date.now() - day * DAY + Math.floor(rand() * DAY * 0.9);
      const failed = rand() < 0.02;
      const prompt = Math.round(model.prompt * (0.3 + rand() * 1.4));
      const completion = failed ? 0 : Math.round(model.completion * (0.2 + rand() * 1.6));
      const cost = failed ? 0 : costOf(gateway.catalogue.get(model.id).pricing, { ...emptyUsage(), inputTokens: prompt, outputTokens: completion });
      const requestId = `req_hist_${who.accountId}_${day}_${i}`;
      usage.push({
        request_id: requestId,
        created_at: created,
        account_id: who.accountId,
        key_id: key.id,
        model: model.id,
        endpoint: model.id.startsWith('text-embedding') ? '/v1/embeddings' : '/v1/chat/completions',
        provider_id: tg.providerId ?? null,
        status: failed ? 502 : 200,
        prompt_tokens: failed ? 0 : prompt,
        completion_tokens: completion,
        cached_tokens: 0,
        units: 0,
        cost_nano: cost,
        latency_ms: Math.round(180 + rand() * 1400),
        estimated: 0,
        error_type: failed ? 'server_error' : null,
        session_id: null,
      });
      if (cost > 0) entries.push({ entryKey: `charge:${requestId}`, accountId: who.accountId, keyId: key.id, requestId, kind: 'charge', amountNano: -cost, note: null, createdAt: created });
    }
  }
}
// in time order, as live traffic would have been written
usage.sort((a, b) => a.created_at - b.created_at);
entries.sort((a, b) => a.createdAt - b.createdAt);
await ledgerRepository(gateway.store.db).flush({ entries, usage, touches: [] });
await gateway.sync.now();

// today, through the gateway
for (const [who, n] of [[acme, 14], [globex, 6], [initech, 3]] as const) {
  for (let i = 0; i < n; i++) {
    const key = who.keys[i % who.keys.length]!;
    const client = new OpenAI({ apiKey: key.secret, baseURL: tg.baseURL });
    if (i % 4 === 3) await client.embeddings.create({ model: 'text-embedding-3-small', input: `document ${i}` });
    else await client.chat.completions.create({ model: i % 3 === 0 ? 'gpt-4o' : 'gpt-4o-mini', messages: [{ role: 'user', content: `Summarise ticket #${4100 + i}` }] });
  }
}
// a second provider, and a few codes
const ops = new ConsoleClient(tg.origin);
await ops.login('olga@modelgate.example', PASSWORD);
await ops.post('/console/api/admin/providers', { name: 'openai-backup', type: 'openai', base_url: tg.sim!.baseUrl, api_key: 'sim-upstream-key', models: ['gpt-4o-mini', 'gpt-4o'], priority: -1, weight: 1 });
await ops.post('/console/api/admin/codes', { amount_usd: 20, count: 5, note: 'Meetup Berlin', expires_at: new Date(Date.now() + 60 * DAY).toISOString() });
const promo = await ops.post('/console/api/admin/codes', { amount_usd: 5, count: 3, note: 'Trial' });
await globex.client.post('/console/api/redeem', { code: promo.body.codes[0].code });
await ops.call('PUT', '/console/api/admin/settings', { signup_credit_usd: 1, default_key_rpm: 600 });
await ops.post('/console/api/admin/invites', { email: 'new.customer@example.com' });

const browser = await launchBrowser();
const shoot = async (page: Page, name: string, path: string, prepare?: (page: Page) => Promise<void>, height?: number) => {
  await page.setViewportSize({ width: 1360, height: height ?? 900 });
  await page.goto(`${tg.origin}/console${path}`);
  await page.waitForLoadState('networkidle');
  await prepare?.(page);
  await page.waitForTimeout(250);
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: !prepare && !height });
  console.log(`docs/console/${name}.png`);
};

const anonymous = await (await browser.context()).newPage();
await shoot(anonymous, 'sign-in', '/login');

const alice = await (await browser.context()).newPage();
await signInInBrowser(alice, tg.origin, 'alice@acme.example');
await shoot(alice, 'customer-overview', '/');
await shoot(alice, 'customer-keys', '/keys');
await shoot(alice, 'customer-key-created', '/keys', async (page) => {
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('dialog').getByLabel('Name').fill('mobile app');
  await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
  await page.getByTestId('new-secret').waitFor();
});
await shoot(alice, 'customer-usage', `/usage?from=${new Date(Date.now() - 20 * DAY).toISOString().slice(0, 10)}`, undefined, 1250);
await shoot(alice, 'customer-billing', '/billing', undefined, 1100);
await shoot(alice, 'customer-models', '/models');

const olga = await (await browser.context()).newPage();
await signInInBrowser(olga, tg.origin, 'olga@modelgate.example');
await shoot(olga, 'operator-overview', '/admin');
await shoot(olga, 'operator-providers', '/admin/providers');
await shoot(olga, 'operator-provider-edit', '/admin/providers', async (page) => {
  await page.getByRole('row').filter({ hasText: 'openai-backup' }).getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('dialog').waitFor();
});
await shoot(olga, 'operator-prices', '/admin/models');
await shoot(olga, 'operator-accounts', '/admin/accounts');
await shoot(olga, 'operator-account', `/admin/accounts/${acme.accountId}`, undefined, 1200);
await shoot(olga, 'operator-codes', '/admin/codes');
await shoot(olga, 'operator-usage', `/admin/usage?group=account&from=${new Date(Date.now() - 20 * DAY).toISOString().slice(0, 10)}`, undefined, 1250);
await shoot(olga, 'operator-settings', '/admin/settings');

const zh = await (await browser.context({ locale: 'zh-CN' })).newPage();
await signInInBrowser(zh, tg.origin, 'alice@acme.example').catch(async () => {
  // the sign-in form is in Chinese for a Chinese browser
  await zh.goto(`${tg.origin}/console/login`);
  await zh.getByLabel('邮箱').fill('alice@acme.example');
  await zh.getByLabel('密码').fill(PASSWORD);
  await zh.getByRole('button', { name: '登录' }).click();
  await zh.waitForURL((url) => !url.pathname.endsWith('/login'));
});
await shoot(zh, 'customer-overview-zh', '/');

await browser.close();
await tg.close();
