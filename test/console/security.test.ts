// The console's defences: cookie flags, CSRF (Origin + per-session token + JSON only), roles,
// and the wall between console sessions and API keys in both directions.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { after, before, describe, test } from 'node:test';
import { ConsoleClient, uniqueEmail } from '../helpers/console-client.ts';
import { PASSWORD, startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';

describe('console security', () => {
  let tg: ConsoleGateway;
  before(async () => {
    tg = await startConsoleGateway();
  });
  after(() => tg.close());

  test('the session cookie is HttpOnly, SameSite=Strict, scoped to the console API; not Secure over http', async () => {
    const c = new ConsoleClient(tg.origin);
    const res = await c.register(uniqueEmail(), PASSWORD);
    const cookie = res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^mg_session=[A-Za-z0-9_-]{40,};/);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Strict/);
    assert.match(cookie, /; Path=\/console\/api/);
    assert.doesNotMatch(cookie, /Secure/);
    // the cookie value is not what the table stores
    const token = /^mg_session=([^;]+)/.exec(cookie)![1]!;
    const rows = await tg.gateway.store.db.selectFrom('console_sessions').select('id').execute();
    assert.ok(rows.every((r) => r.id !== token));
  });

  test('behind https (PUBLIC_BASE_URL) the cookie is Secure', async () => {
    const secure = await startConsoleGateway({ simulator: false, env: { PUBLIC_BASE_URL: 'https://gw.example.test' } });
    try {
      const res = await fetch(`${secure.origin}/console/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://gw.example.test' },
        body: JSON.stringify({ email: uniqueEmail(), password: PASSWORD }),
      });
      assert.equal(res.status, 201);
      assert.match(res.headers.get('set-cookie') ?? '', /; Secure/);
    } finally {
      await secure.close();
    }
  });

  test('writes need the Origin of this gateway', async () => {
    const customer = await tg.registerCustomer();
    const foreign = await customer.client.call('POST', '/console/api/keys', { name: 'x' }, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.code, 'csrf_origin');
    const res = await fetch(`${tg.origin}/console/api/keys`, {
      method: 'POST',
      headers: { cookie: customer.client.cookie!, 'x-csrf-token': customer.client.csrf!, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 403, 'no Origin at all');
    // sign-in is protected the same way (no login CSRF)
    const login = await fetch(`${tg.origin}/console/api/auth/login`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ email: customer.email, password: PASSWORD }),
    });
    assert.equal(login.status, 403);
  });

  test('writes need the session CSRF token', async () => {
    const customer = await tg.registerCustomer();
    const missing = await customer.client.call('POST', '/console/api/keys', { name: 'x' }, { 'x-csrf-token': '' });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.error.code, 'csrf_token');
    const other = await tg.registerCustomer();
    const stolen = await customer.client.call('POST', '/console/api/keys', { name: 'x' }, { 'x-csrf-token': other.client.csrf! });
    assert.equal(stolen.status, 403);
    assert.equal((await customer.client.post('/console/api/keys', { name: 'x' })).status, 201);
  });

  test('bodies must be JSON: form and text posts are refused before they are read', async () => {
    const customer = await tg.registerCustomer();
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await customer.client.call('POST', '/console/api/keys', 'name=x', { 'content-type': type });
      assert.equal(res.status, 415, type);
    }
  });

  test('API keys are never console credentials, and console sessions never open /v1', async () => {
    const customer = await tg.registerCustomer(1);
    const created = await customer.client.post('/console/api/keys', { name: 'k' });
    const secret = created.body.secret as string;
    const withKey = await fetch(`${tg.origin}/console/api/keys`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(withKey.status, 401);
    const withCookie = await fetch(`${tg.origin}/v1/models`, { headers: { cookie: customer.client.cookie! } });
    assert.equal(withCookie.status, 401);
    const chat = await fetch(`${tg.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { cookie: customer.client.cookie!, 'content-type': 'application/json', origin: tg.origin, 'x-csrf-token': customer.client.csrf! },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(chat.status, 401);
    // and the key itself works where it belongs
    const client = new OpenAI({ apiKey: secret, baseURL: tg.baseURL });
    assert.ok((await client.models.list()).data.length > 0);
  });

  test('a customer gets 403 from every operator API; an operator has no customer wallet', async () => {
    const customer = await tg.registerCustomer();
    for (const path of ['/admin/overview', '/admin/providers', '/admin/models', '/admin/accounts', '/admin/codes', '/admin/settings', '/admin/usage/rows', '/admin/invites']) {
      assert.equal((await customer.client.get(`/console/api${path}`)).status, 403, path);
    }
    assert.equal((await customer.client.post(`/console/api/admin/accounts/${customer.accountId}/credit`, { amount_usd: 100, note: 'free money' })).status, 403);
    assert.equal((await customer.client.post('/console/api/admin/codes', { amount_usd: 100, count: 1 })).status, 403);
    const ops = await tg.operator();
    assert.equal((await ops.get('/console/api/overview')).status, 403);
    assert.equal((await ops.get('/console/api/admin/overview')).status, 200);
  });

  test("a customer cannot see or change another account's keys", async () => {
    const alice = await tg.registerCustomer();
    const bob = await tg.registerCustomer();
    const key = (await alice.client.post('/console/api/keys', { name: 'alice' })).body.key;
    assert.equal((await bob.client.call('PATCH', `/console/api/keys/${key.id}`, { disabled: true })).status, 404);
    assert.equal((await bob.client.call('DELETE', `/console/api/keys/${key.id}`)).status, 404);
    assert.equal((await bob.client.post(`/console/api/keys/${key.id}/roll`)).status, 404);
    assert.equal((await bob.client.get('/console/api/keys')).body.data.length, 0);
    assert.equal((await bob.client.get(`/console/api/usage/rows?account_id=${alice.accountId}`)).status, 400, 'account_id is not a customer filter');
    const rows = await bob.client.get(`/console/api/usage/rows?key_id=${key.id}`);
    assert.equal(rows.status, 200);
    assert.equal(rows.body.data.length, 0);
  });

  test('pages carry a self-only CSP; API answers are never cached', async () => {
    const page = await fetch(`${tg.origin}/console/`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    const html = await page.text();
    assert.doesNotMatch(html, /<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>[^<]/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'no third-party host');
    const api = await fetch(`${tg.origin}/console/api/session`);
    assert.equal(api.headers.get('cache-control'), 'no-store');
    assert.equal((await fetch(`${tg.origin}/console/api/nope`)).status, 404);
  });
});
