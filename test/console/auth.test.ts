// Human sign-in, separate from API keys: registration modes, argon2id hashes, one generic
// sign-in error, session rotation, password change, sign out everywhere, attempt limits, and the
// two ways to the first operator (command line, MODELGATE_ADMIN_TOKEN).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { hashPassword, verifyPassword } from '../../src/console/security/passwords.ts';
import { openStore } from '../../src/store/database.ts';
import { ConsoleClient, uniqueEmail } from '../helpers/console-client.ts';
import { PASSWORD, startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';
import { ADMIN_TOKEN, startTestGateway } from '../helpers/gateway.ts';

describe('console sign-in', () => {
  let tg: ConsoleGateway;
  before(async () => {
    tg = await startConsoleGateway({ simulator: false });
  });
  after(() => tg.close());

  test('passwords are stored as argon2id PHC strings and verify', async () => {
    const hash = await hashPassword('a fine passphrase');
    assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    assert.equal(await verifyPassword('a fine passphrase', hash), true);
    assert.equal(await verifyPassword('a fine passphrasE', hash), false);
    const customer = await tg.registerCustomer();
    const row = await tg.gateway.store.db.selectFrom('console_users').select('password_hash').where('id', '=', customer.userId).executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$/);
    assert.ok(!row.password_hash.includes(PASSWORD));
  });

  test('register opens a session and an account with a zero balance', async () => {
    const c = new ConsoleClient(tg.origin);
    const res = await c.register(uniqueEmail(), PASSWORD, { name: 'Ada' });
    assert.equal(res.status, 201);
    assert.equal(res.body.user.role, 'customer');
    assert.match(res.body.user.account_id, /^acct_/);
    const session = await c.get('/console/api/session');
    assert.equal(session.body.user.name, 'Ada');
    const overview = await c.get('/console/api/overview');
    assert.equal(overview.status, 200);
    assert.equal(overview.body.balance_usd, '0.00');
  });

  test('weak passwords, bad emails and taken emails are refused', async () => {
    const c = new ConsoleClient(tg.origin);
    assert.equal((await c.register(uniqueEmail(), 'short')).body.error.param, 'password');
    assert.equal((await c.register('not-an-email', PASSWORD)).body.error.param, 'email');
    const email = uniqueEmail();
    assert.equal((await c.register(email, PASSWORD)).status, 201);
    assert.equal((await new ConsoleClient(tg.origin).register(email.toUpperCase(), PASSWORD)).status, 409);
  });

  test('a failed sign-in says the same whether or not the email exists', async () => {
    const customer = await tg.registerCustomer();
    const wrongPassword = await new ConsoleClient(tg.origin).login(customer.email, 'wrong password!!');
    const noSuchUser = await new ConsoleClient(tg.origin).login(uniqueEmail('nobody'), 'wrong password!!');
    assert.equal(wrongPassword.status, 401);
    assert.equal(noSuchUser.status, 401);
    assert.deepEqual(wrongPassword.body, noSuchUser.body);
    assert.equal(wrongPassword.headers.get('set-cookie'), null);
  });

  test('sign-in rotates the session: a new cookie each time, the old one dead', async () => {
    const customer = await tg.registerCustomer();
    const first = customer.client.cookie;
    const again = await customer.client.login(customer.email, PASSWORD);
    assert.equal(again.status, 200);
    assert.notEqual(customer.client.cookie, first);
    const stale = new ConsoleClient(tg.origin);
    stale.cookie = first;
    assert.equal((await stale.get('/console/api/session')).body.user, null);
    assert.equal((await stale.get('/console/api/keys')).status, 401);
  });

  test('logout ends the session; sign out everywhere ends them all', async () => {
    const customer = await tg.registerCustomer();
    const other = new ConsoleClient(tg.origin);
    await other.login(customer.email, PASSWORD);
    const third = new ConsoleClient(tg.origin);
    await third.login(customer.email, PASSWORD);

    const out = await third.post('/console/api/auth/logout');
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
    assert.equal((await third.get('/console/api/keys')).status, 401);
    assert.equal((await other.get('/console/api/keys')).status, 200);

    assert.equal((await other.post('/console/api/auth/logout-everywhere')).status, 200);
    assert.equal((await other.get('/console/api/keys')).status, 401);
    assert.equal((await customer.client.get('/console/api/keys')).status, 401);
  });

  test('a password change needs the current password and signs out other sessions', async () => {
    const customer = await tg.registerCustomer();
    const other = new ConsoleClient(tg.origin);
    await other.login(customer.email, PASSWORD);
    const bad = await customer.client.post('/console/api/auth/password', { current_password: 'not it at all', new_password: 'another good passphrase' });
    assert.equal(bad.status, 400);
    const before = customer.client.cookie;
    const ok = await customer.client.post('/console/api/auth/password', { current_password: PASSWORD, new_password: 'another good passphrase' });
    assert.equal(ok.status, 200);
    assert.notEqual(customer.client.cookie, before, 'the session rotates');
    assert.equal((await customer.client.get('/console/api/keys')).status, 200);
    assert.equal((await other.get('/console/api/keys')).status, 401);
    assert.equal((await new ConsoleClient(tg.origin).login(customer.email, PASSWORD)).status, 401);
    assert.equal((await new ConsoleClient(tg.origin).login(customer.email, 'another good passphrase')).status, 200);
  });

  test('closed and invite-only registration; sign-up credit lands in the ledger', async () => {
    const ops = await tg.operator();
    assert.equal((await ops.call('PUT', '/console/api/admin/settings', { registration_mode: 'closed' })).status, 200);
    const closed = await new ConsoleClient(tg.origin).register(uniqueEmail(), PASSWORD);
    assert.equal(closed.status, 403);
    assert.equal(closed.body.error.code, 'registration_closed');
    assert.equal((await new ConsoleClient(tg.origin).get('/console/api/session')).body.registration_mode, 'closed');

    await ops.call('PUT', '/console/api/admin/settings', { registration_mode: 'invite', signup_credit_usd: 2.5 });
    assert.equal((await new ConsoleClient(tg.origin).register(uniqueEmail(), PASSWORD)).body.error.code, 'invite_required');
    const invite = await ops.post('/console/api/admin/invites', {});
    assert.equal(invite.status, 201);
    const joined = new ConsoleClient(tg.origin);
    assert.equal((await joined.register(uniqueEmail(), PASSWORD, { invite_code: invite.body.code })).status, 201);
    assert.equal((await new ConsoleClient(tg.origin).register(uniqueEmail(), PASSWORD, { invite_code: invite.body.code })).status, 403, 'an invite is used once');
    const ledger = await joined.get('/console/api/ledger');
    assert.equal(ledger.body.balance_usd, '2.50');
    assert.equal(ledger.body.data[0].kind, 'credit');
    assert.equal(ledger.body.data[0].note, 'Sign-up credit');

    const forSomeone = await ops.post('/console/api/admin/invites', { email: 'someone@example.test' });
    assert.equal((await new ConsoleClient(tg.origin).register(uniqueEmail(), PASSWORD, { invite_code: forSomeone.body.code })).status, 403);
    assert.equal((await new ConsoleClient(tg.origin).register('Someone@example.test', PASSWORD, { invite_code: forSomeone.body.code })).status, 201);
    await ops.call('PUT', '/console/api/admin/settings', { registration_mode: 'open', signup_credit_usd: 0 });
  });

  test('MODELGATE_ADMIN_TOKEN turns into an operator user; a wrong token does not', async () => {
    const c = new ConsoleClient(tg.origin);
    const wrong = await c.post('/console/api/auth/operator-token', { admin_token: 'nope', email: uniqueEmail('boss'), password: PASSWORD });
    assert.equal(wrong.status, 401);
    const email = uniqueEmail('boss');
    const ok = await c.post('/console/api/auth/operator-token', { admin_token: ADMIN_TOKEN, email, password: PASSWORD });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.user.role, 'admin');
    assert.equal((await c.get('/console/api/admin/overview')).status, 200);
    assert.equal((await new ConsoleClient(tg.origin).login(email, PASSWORD)).body.user.role, 'admin');
  });
});

describe('console sign-in limits', () => {
  test('attempts are limited per email and per address, with the same answer for every email', async () => {
    const tg = await startConsoleGateway({ simulator: false, env: { MODELGATE_LOGIN_MAX_PER_EMAIL: '3', MODELGATE_LOGIN_MAX_PER_IP: '8' } });
    try {
      const email = uniqueEmail();
      for (let i = 0; i < 3; i++) assert.equal((await new ConsoleClient(tg.origin).login(email, 'wrong password!!')).status, 401);
      const limited = await new ConsoleClient(tg.origin).login(email, 'wrong password!!');
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal(limited.body.error.code, 'too_many_attempts');
      // other emails from the same address, until the address is limited too
      let status = 0;
      for (let i = 0; i < 6 && status !== 429; i++) status = (await new ConsoleClient(tg.origin).login(uniqueEmail(), 'wrong password!!')).status;
      assert.equal(status, 429);
    } finally {
      await tg.close();
    }
  });
});

describe('npm run admin:create', () => {
  test('creates an operator in the configured database who can then sign in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-admin-'));
    const url = `sqlite:${join(dir, 'gw.db')}`;
    try {
      const run = promisify(execFile);
      const { stdout } = await run(process.execPath, ['scripts/admin-create.ts', '--email', 'Root@Example.test', '--password', 'a long passphrase', '--name', 'Root'], {
        env: { ...process.env, DATABASE_URL: url },
      });
      assert.match(stdout, /Operator root@example\.test created/);
      await assert.rejects(run(process.execPath, ['scripts/admin-create.ts', '--email', 'root@example.test', '--password', 'a long passphrase'], { env: { ...process.env, DATABASE_URL: url } }));
      const tg = await startTestGateway({ databaseUrl: url, simulator: false });
      try {
        const c = new ConsoleClient(tg.origin);
        const res = await c.login('root@example.test', 'a long passphrase');
        assert.equal(res.status, 200);
        assert.equal(res.body.user.role, 'admin');
      } finally {
        await tg.close();
      }
      const store = await openStore(url);
      assert.equal((await store.db.selectFrom('console_users').selectAll().execute()).length, 1);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
