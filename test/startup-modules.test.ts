// What the gateway loads to start (issue 21): each module is CPU and memory at every start. The
// route schemas are plain JSON Schema, so typebox (373 modules, ~20 MB, ~120 ms when imported)
// is not loaded at start, nor by the admin API's and the console's validation afterwards; of
// rate-limiter-flexible, only the files of the classes used.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { startChildGateway, type ChildGateway } from './helpers/child-gateway.ts';

const PRELOAD = fileURLToPath(new URL('./helpers/loaded-modules.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'modelgate-modules-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The URLs of every module the gateway has loaded so far (the preload writes them on SIGWINCH). */
async function loadedModules(gateway: ChildGateway): Promise<string[]> {
  const from = gateway.output().length;
  gateway.child.kill('SIGWINCH');
  for (;;) {
    const line = /loaded-modules (\[.*\])\n/.exec(gateway.output().slice(from));
    if (line) return JSON.parse(line[1]!) as string[];
    await once(gateway.child.stderr, 'data');
  }
}

const typebox = (urls: string[]) => urls.filter((u) => u.includes('/node_modules/typebox/'));

test('the gateway starts, validates admin and console requests, and never loads typebox; of rate-limiter-flexible only its in-memory limiter', async (t) => {
  const gateway = await startChildGateway({
    DATABASE_URL: `sqlite:${join(dir, 'modelgate.db')}`,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${PRELOAD}`,
  });
  t.after(() => gateway.kill9());

  const atStart = await loadedModules(gateway);
  assert.ok(atStart.some((u) => u.endsWith('/src/console/routes/admin-codes.ts')), 'the console routes are loaded');
  assert.ok(atStart.some((u) => u.endsWith('/src/http/routes/admin/accounts.ts')), 'the admin routes are loaded');
  assert.ok(atStart.some((u) => u.includes('/node_modules/fastify/')), 'node_modules files are listed');
  assert.deepEqual(typebox(atStart), [], 'no typebox module at start');
  // rate-limiter-flexible's index requires every store it supports (36 files): only the in-memory limiter's 5
  const limiterFiles = atStart.filter((u) => u.includes('/node_modules/rate-limiter-flexible/')).map((u) => u.split('/rate-limiter-flexible/')[1]);
  assert.ok(limiterFiles.includes('lib/RateLimiterMemory.js'), limiterFiles.join());
  assert.ok(limiterFiles.length <= 5, `rate-limiter-flexible files at start: ${limiterFiles.join(', ')}`);

  // the schemas still validate: a bound, a required field, a nullable union, a date-time format
  const account = await gateway.admin('POST', '/admin/accounts', { name: 'modules' });
  assert.equal(account.status, 201);
  const bad = [
    [await gateway.admin('POST', '/admin/accounts', { name: '' }), 'name'],
    [await gateway.admin('POST', `/admin/accounts/${account.body.id}/credit`, {}), 'amount_usd'],
    [await gateway.admin('POST', `/admin/accounts/${account.body.id}/keys`, { rpm: 0 }), 'rpm'],
    [await gateway.admin('POST', `/admin/accounts/${account.body.id}/keys`, { expires_at: 'tomorrow' }), 'expires_at'],
  ] as const;
  for (const [res, field] of bad) {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(JSON.stringify(res.body), new RegExp(field));
  }
  assert.equal((await gateway.admin('POST', `/admin/accounts/${account.body.id}/keys`, { rpm: null, expires_at: null })).status, 201);
  const login = await fetch(`${gateway.origin}/console/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: gateway.origin }, body: JSON.stringify({ email: 'a@example.com' }) });
  assert.equal(login.status, 400);
  assert.match(await login.text(), /password/);

  assert.deepEqual(typebox(await loadedModules(gateway)), [], 'no typebox module after validating');
  assert.equal(await gateway.stop(), 0);
});
