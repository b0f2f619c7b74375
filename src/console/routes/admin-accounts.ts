import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { accountView, creditAccount, findAccount, listAccounts, updateAccount } from '../../admin/accounts.ts';
import { accountKeysPage, findKey, revokeKey, updateKey } from '../../admin/keys.ts';
import { ledgerPage } from '../../admin/ledger.ts';
import { AccountPatchSchema, KeyPatchSchema, type KeyPatch } from '../../admin/schemas.ts';
import { usdString } from '../../core/money.ts';
import type { AccountRecord } from '../../store/repositories/accounts.ts';
import type { ConsoleContext } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { requireAdminHook } from '../security/session.ts';
import { consoleKeyView } from '../views.ts';

type IdParams = { Params: { id: string } };

const ListQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200 }, before: { type: 'string', maxLength: 100 }, search: { type: 'string', maxLength: 200 } },
  additionalProperties: false,
} as const;
const LedgerQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200 }, before: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
  additionalProperties: false,
} as const;
const CreditBody = {
  type: 'object',
  required: ['amount_usd', 'note'],
  properties: { amount_usd: { type: 'number', minimum: -1_000_000, maximum: 1_000_000 }, note: { type: 'string', minLength: 1, maxLength: 1000 } },
  additionalProperties: false,
} as const;

// the admin API's view, with exact USD strings
const accountConsoleView = (deps: ConsoleDeps, record: AccountRecord) => accountView(deps, record, usdString);

/** Accounts: search, balance, credit or debit with a note, their keys and journal, disable. */
export function registerAdminAccountRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const deps = ctx.deps;
  const opts = { preHandler: requireAdminHook };

  app.get<{ Querystring: Static<typeof ListQuery> }>('/console/api/admin/accounts', { ...opts, schema: { querystring: ListQuery } }, async (request) => {
    const q = request.query;
    const limit = q.limit ?? 25;
    const rows = await listAccounts(deps, { limit: limit + 1, ...(q.before && { before: q.before }), ...(q.search && { search: q.search.trim() }) });
    const page = rows.slice(0, limit);
    return { data: page.map((r) => accountConsoleView(deps, r)), next_before: rows.length > limit ? page[page.length - 1]!.id : null };
  });

  app.get<IdParams>('/console/api/admin/accounts/:id', opts, async (request) => {
    const account = await findAccount(deps, request.params.id);
    const [users, keys] = await Promise.all([ctx.users.byAccount(account.id), accountKeysPage(deps, account.id, 200)]);
    return {
      account: accountConsoleView(deps, account),
      users: users.map((u) => ({ id: u.id, email: u.email, name: u.name, disabled: u.disabled, created_at: new Date(u.createdAt).toISOString() })),
      keys: keys.map((k) => consoleKeyView(deps, k)),
    };
  });

  app.patch<IdParams & { Body: Static<typeof AccountPatchSchema> }>('/console/api/admin/accounts/:id', { ...opts, schema: { body: AccountPatchSchema } }, async (request) =>
    accountConsoleView(deps, await updateAccount(deps, request.params.id, request.body)),
  );

  // the page sends an Idempotency-Key per submitted form, so a double click credits once
  app.post<IdParams & { Body: Static<typeof CreditBody> }>('/console/api/admin/accounts/:id/credit', { ...opts, schema: { body: CreditBody } }, async (request) => {
    const idempotencyKey = request.headers['idempotency-key'];
    const note = `${request.body.note} (by ${request.signedIn!.user.email})`;
    await creditAccount(deps, request.params.id, { amount_usd: request.body.amount_usd, note }, typeof idempotencyKey === 'string' ? idempotencyKey : undefined, request.id);
    return accountConsoleView(deps, await findAccount(deps, request.params.id));
  });

  app.get<IdParams & { Querystring: Static<typeof LedgerQuery> }>('/console/api/admin/accounts/:id/ledger', { ...opts, schema: { querystring: LedgerQuery } }, async (request) => {
    const account = await findAccount(deps, request.params.id);
    return ledgerPage(deps, account.id, request.query.limit ?? 50, request.query.before, usdString);
  });

  app.patch<IdParams & { Body: KeyPatch }>('/console/api/admin/keys/:id', { ...opts, schema: { body: KeyPatchSchema } }, async (request) => ({
    key: consoleKeyView(deps, await updateKey(deps, request.params.id, request.body)),
  }));

  app.delete<IdParams>('/console/api/admin/keys/:id', opts, async (request) => {
    await findKey(deps, request.params.id);
    await revokeKey(deps, request.params.id);
    return { id: request.params.id, revoked: true };
  });
}
