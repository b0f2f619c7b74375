// Money through the console API: redemption codes (once, even when raced), operator credit with
// a note (idempotent), the ledger's running balance, key spend caps, and usage retention.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { after, before, describe, test } from 'node:test';
import { runHousekeeping } from '../../src/console/jobs.ts';
import { createConsoleContext } from '../../src/console/context.ts';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';

const nano = (usd: string) => {
  const [whole, frac = ''] = usd.replace('-', '').split('.');
  const value = Number(whole) * 1e9 + Number(frac.padEnd(9, '0'));
  return usd.startsWith('-') ? -value : value;
};

describe('console billing', () => {
  let tg: ConsoleGateway;
  before(async () => {
    tg = await startConsoleGateway();
  });
  after(() => tg.close());

  test('a redemption code credits once, even when two accounts race for it', async () => {
    const ops = await tg.operator();
    const batch = await ops.post('/console/api/admin/codes', { amount_usd: 7.25, count: 3, note: 'launch' });
    assert.equal(batch.status, 201);
    assert.equal(batch.body.codes.length, 3);
    const code = batch.body.codes[0].code as string;
    assert.match(code, /^MG-[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);

    const alice = await tg.registerCustomer();
    const bob = await tg.registerCustomer();
    const [a, b] = await Promise.all([alice.client.post('/console/api/redeem', { code }), bob.client.post('/console/api/redeem', { code: code.toLowerCase() })]);
    assert.deepEqual([a.status, b.status].sort(), [200, 400]);
    const winner = a.status === 200 ? alice : bob;
    const loser = a.status === 200 ? bob : alice;
    assert.equal((await winner.client.get('/console/api/ledger')).body.balance_usd, '7.25');
    assert.equal((await loser.client.get('/console/api/ledger')).body.balance_usd, '0.00');
    assert.equal((await winner.client.post('/console/api/redeem', { code })).status, 400, 'never twice');
    const entry = (await winner.client.get('/console/api/ledger')).body.data[0];
    assert.equal(entry.kind, 'redemption');
    assert.equal(entry.amount_usd, '7.25');

    const listed = await ops.get(`/console/api/admin/codes?batch=${batch.body.batch}`);
    const used = listed.body.data.find((c: { code: string }) => c.code === code);
    assert.equal(used.status, 'redeemed');
    assert.equal(used.redeemed_by, winner.accountId);

    // revoked codes do not work; the export lists the batch
    const revoked = batch.body.codes[1];
    assert.equal((await ops.call('DELETE', `/console/api/admin/codes/${revoked.id}`)).status, 200);
    assert.equal((await loser.client.post('/console/api/redeem', { code: revoked.code })).status, 400);
    const csv = await ops.get(`/console/api/admin/codes/export.csv?batch=${batch.body.batch}`);
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    const lines = csv.text.trim().split('\r\n');
    assert.equal(lines.length, 4);
    assert.ok(lines.some((l) => l.startsWith(`${revoked.code},7.25,revoked`)));
    assert.equal((await ops.get('/console/api/admin/codes?status=unused&limit=200')).body.data.filter((c: { batch: string }) => c.batch === batch.body.batch).length, 1);
  });

  test('an expired code does not work', async () => {
    const ops = await tg.operator();
    const batch = await ops.post('/console/api/admin/codes', { amount_usd: 1, count: 1, expires_at: new Date(Date.now() + 300).toISOString() });
    await new Promise((r) => setTimeout(r, 400));
    const customer = await tg.registerCustomer();
    assert.equal((await customer.client.post('/console/api/redeem', { code: batch.body.codes[0].code })).status, 400);
  });

  test('operator credit and debit carry a note, are idempotent per form, and the ledger adds up', async () => {
    const ops = await tg.operator();
    const customer = await tg.registerCustomer();
    const key = { 'idempotency-key': 'form-1' };
    const first = await ops.call('POST', `/console/api/admin/accounts/${customer.accountId}/credit`, { amount_usd: 12.5, note: 'invoice 42' }, key);
    const again = await ops.call('POST', `/console/api/admin/accounts/${customer.accountId}/credit`, { amount_usd: 12.5, note: 'invoice 42' }, key);
    assert.equal(first.status, 200);
    assert.equal(again.body.balance_usd, '12.50', 'a double submit credits once');
    await ops.call('POST', `/console/api/admin/accounts/${customer.accountId}/credit`, { amount_usd: -2.25, note: 'correction' });
    assert.equal((await ops.post(`/console/api/admin/accounts/${customer.accountId}/credit`, { amount_usd: 1 })).status, 400, 'a note is required');

    const secret = (await customer.client.post('/console/api/keys', { name: 'k' })).body.secret;
    const client = new OpenAI({ apiKey: secret, baseURL: tg.baseURL });
    for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hello ${i}` }] });

    const ledger = (await customer.client.get('/console/api/ledger')).body;
    assert.equal(ledger.data.length, 5);
    assert.equal(ledger.data[0].balance_usd, ledger.balance_usd, 'the newest entry shows the balance');
    assert.equal(ledger.data.reduce((s: number, e: { amount_usd: string }) => s + nano(e.amount_usd), 0), nano(ledger.balance_usd), 'entries sum to the balance');
    for (let i = 0; i + 1 < ledger.data.length; i++) {
      assert.equal(nano(ledger.data[i].balance_usd) - nano(ledger.data[i].amount_usd), nano(ledger.data[i + 1].balance_usd));
    }
    assert.ok(ledger.data.find((e: { note: string | null }) => e.note?.startsWith('invoice 42 (by ')));
    assert.equal(ledger.data[0].model, 'gpt-4o-mini');

    // paging keeps the running balance right
    const page1 = (await customer.client.get('/console/api/ledger?limit=2')).body;
    const page2 = (await customer.client.get(`/console/api/ledger?limit=2&before=${page1.next_before}`)).body;
    assert.deepEqual(page2.data.map((e: { balance_usd: string }) => e.balance_usd), ledger.data.slice(2, 4).map((e: { balance_usd: string }) => e.balance_usd));
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('keys created in the console get the default limits; a spend cap is a cap', async () => {
    const ops = await tg.operator();
    await ops.call('PUT', '/console/api/admin/settings', { default_key_rpm: 120, default_key_max_spend_usd: 0.5 });
    const customer = await tg.registerCustomer(1);
    const key = (await customer.client.post('/console/api/keys', { name: 'defaults' })).body.key;
    assert.equal(key.rpm, 120);
    assert.equal(key.max_spend_usd, '0.50');
    const own = (await customer.client.post('/console/api/keys', { name: 'own', rpm: null, max_spend_usd: 0.00001 })).body.key;
    assert.equal(own.rpm, null);
    await ops.call('PUT', '/console/api/admin/settings', { default_key_rpm: null, default_key_max_spend_usd: null });
    const secret = (await customer.client.post(`/console/api/keys/${own.id}/roll`)).body.secret;
    const client = new OpenAI({ apiKey: secret, baseURL: tg.baseURL, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'spend' }], max_tokens: 5 }).catch(() => undefined);
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'more' }], max_tokens: 5 }), (e: { status?: number }) => e.status === 402);
  });

  test('retention deletes old usage rows, keeps rollups and the ledger', async () => {
    const customer = await tg.registerCustomer(1);
    const secret = (await customer.client.post('/console/api/keys', {})).body.secret;
    await new OpenAI({ apiKey: secret, baseURL: tg.baseURL }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'old' }] });
    await tg.gateway.sync.now();
    const ctx = createConsoleContext(tg.gateway);
    await ctx.settings.write({ usage_retention_days: 1 });
    const deleted = await runHousekeeping(ctx, Date.now() + 2 * 86_400_000);
    assert.ok(deleted >= 1);
    assert.equal((await customer.client.get('/console/api/usage/rows')).body.data.length, 0);
    const series = (await customer.client.get('/console/api/usage/series')).body;
    assert.equal(series.totals.requests, 1, 'the rollups remember');
    assert.equal((await customer.client.get('/console/api/ledger')).body.data.length, 2);
    await ctx.settings.write({ usage_retention_days: null });
  });
});
