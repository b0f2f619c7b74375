// The admin API (admin token) and the console API (a signed-in customer and operator). They act
// only on a sandbox account, key and models of their own (`{sandbox}`, `{sandboxKey}` and
// `{consoleKey}` are filled in when sent), so that they never change what the client routes use.
import fc from 'fast-check';
import type { RouteSpec } from './mutate.ts';
import type { FuzzRequest } from './request.ts';
import { hostileValue } from './values.ts';

const name = fc.constantFrom('ops', 'Team Ω', 'a b', 'x');
const usd = fc.double({ min: 0.01, max: 5, noNaN: true });
const fuzzModel = fc.constantFrom('fuzz-only-a', 'fuzz-only-b');

const admin = (path: string, method: string, valid: fc.Arbitrary<Record<string, unknown>>, typed: RouteSpec['typed']): RouteSpec => ({
  route: `admin ${path}`,
  method,
  path,
  dialect: 'openai',
  principal: 'admin',
  valid: valid.map((body) => ({ body })),
  typed,
});

const consoleRoute = (who: 'console-customer' | 'console-operator', path: string, method: string, valid: fc.Arbitrary<Record<string, unknown>>, typed: RouteSpec['typed']): RouteSpec => ({
  route: `console ${path}`,
  method,
  path,
  dialect: 'openai',
  principal: who,
  valid: valid.map((body) => ({ body })),
  typed,
});

export const OPERATOR_ROUTES: readonly RouteSpec[] = [
  admin('/admin/accounts', 'POST', fc.record({ name }), { name: ['string'], email: ['string', 'null'] }),
  admin('/admin/accounts/{sandbox}', 'PATCH', fc.record({ name }), { name: ['string'], email: ['string', 'null'], disabled: ['boolean'] }),
  admin('/admin/accounts/{sandbox}/credit', 'POST', fc.record({ amount_usd: usd, note: name }), { amount_usd: ['number'], note: ['string'] }),
  admin('/admin/accounts/{sandbox}/keys', 'POST', fc.record({ name, rpm: fc.integer({ min: 1, max: 1000 }) }), { name: ['string', 'null'], models: ['array', 'null'], rpm: ['integer', 'null'], max_spend_usd: ['number', 'null'] }),
  admin('/admin/keys/{sandboxKey}', 'PATCH', fc.record({ name, tpm: fc.integer({ min: 1, max: 1000 }) }), { name: ['string', 'null'], disabled: ['boolean'], tpm: ['integer', 'null'], expires_at: ['string', 'null'] }),
  admin('/admin/models/fuzz-only-a', 'PUT', fc.record({ pricing: fc.record({ input_per_mtok: usd, output_per_mtok: usd }) }), { pricing: ['object'], 'pricing.input_per_mtok': ['number'], capabilities: ['object'] }),
  {
    ...admin(
    '/admin/providers',
    'POST',
    fc.record({ name: name.map((n) => `fuzz-${n}`), models: fc.array(fuzzModel, { maxLength: 2 }) }).map((b) => ({ ...b, type: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'k', enabled: false })),
    { name: ['string'], type: ['string'], base_url: ['string'], models: ['array'], priority: ['integer'], settings: ['object'] },
    ),
    validMayFail: true,
  },
  consoleRoute('console-customer', '/console/api/keys', 'POST', fc.record({ name }), { name: ['string', 'null'], rpm: ['integer', 'null'], models: ['array', 'null'] }),
  consoleRoute('console-customer', '/console/api/keys/{consoleKey}', 'PATCH', fc.record({ name }), { name: ['string', 'null'], disabled: ['boolean'] }),
  { ...consoleRoute('console-customer', '/console/api/redeem', 'POST', fc.record({ code: fc.constantFrom('NOPE-0000', 'x') }), { code: ['string'] }), validMayFail: true },
  consoleRoute('console-customer', '/console/api/profile', 'PATCH', fc.record({ name }), { name: ['string'] }),
  consoleRoute('console-operator', '/console/api/admin/accounts/{sandbox}/credit', 'POST', fc.record({ amount_usd: usd, note: name }), { amount_usd: ['number'] }),
  consoleRoute('console-operator', '/console/api/admin/codes', 'POST', fc.record({ amount_usd: fc.double({ min: 0.01, max: 1, noNaN: true }), count: fc.integer({ min: 1, max: 3 }) }), { amount_usd: ['number'], count: ['integer'] }),
  consoleRoute('console-operator', '/console/api/admin/models/fuzz-only-b', 'PUT', fc.record({ pricing: fc.record({ per_request: usd }) }), { pricing: ['object'] }),
  consoleRoute('console-operator', '/console/api/admin/settings', 'PUT', fc.record({ low_balance_usd: usd }), { low_balance_usd: ['number'], signup_credit_usd: ['number'], registration_mode: ['string'] }),
  consoleRoute('console-operator', '/console/api/admin/invites', 'POST', fc.record({ note: name, expires_in_days: fc.integer({ min: 1, max: 30 }) }), { note: ['string'], expires_in_days: ['integer'] }),
  { ...consoleRoute('console-customer', '/console/api/auth/login', 'POST', fc.record({ email: fc.constant('nobody@example.test'), password: fc.constant('wrong password') }), { email: ['string'], password: ['string'] }), principal: 'none', validMayFail: true },
];

/** Query strings of the read routes, valid and hostile. */
const queryValue = fc.oneof(fc.constantFrom('1', '0', '-1', '1e308', 'NaN', '9007199254740993', '', 'ok', 'error', '500', 'day', 'model', '%00', '%ED%A0%80', 'x'.repeat(5000)), hostileValue.map((v) => encodeURIComponent((typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).slice(0, 3000).toWellFormed())));

const READS: ReadonlyArray<{ path: string; principal: FuzzRequest['principal']; keys: readonly string[] }> = [
  { path: '/admin/usage', principal: 'admin', keys: ['account_id', 'key_id', 'model', 'limit', 'before'] },
  { path: '/admin/accounts', principal: 'admin', keys: ['limit', 'after', 'q'] },
  { path: '/admin/accounts/{sandbox}/ledger', principal: 'admin', keys: ['limit', 'before'] },
  { path: '/console/api/usage/rows', principal: 'console-customer', keys: ['from', 'to', 'limit', 'before', 'status', 'model'] },
  { path: '/console/api/usage/series', principal: 'console-customer', keys: ['from', 'to', 'granularity', 'group'] },
  { path: '/console/api/ledger', principal: 'console-customer', keys: ['limit', 'before'] },
  { path: '/console/api/admin/usage/series', principal: 'console-operator', keys: ['from', 'to', 'granularity', 'group', 'account_id'] },
  { path: '/console/api/admin/codes', principal: 'console-operator', keys: ['status', 'batch', 'limit'] },
];

export const readCases: fc.Arbitrary<FuzzRequest> = fc
  .tuple(fc.constantFrom(...READS), fc.array(fc.tuple(fc.nat(), queryValue), { maxLength: 3 }))
  .map(([read, params]) => {
    const query = params.map(([i, value]) => `${read.keys[i % read.keys.length]}=${value}`).join('&');
    return {
      route: `GET ${read.path}`,
      method: 'GET',
      path: query ? `${read.path}?${query}` : read.path,
      dialect: 'openai',
      principal: read.principal,
      body: { kind: 'none' },
      mutation: query ? `query ${query.slice(0, 200)}` : 'no query',
    };
  });
