import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { creditAccount, findAccount, updateAccount } from '../../admin/accounts.ts';
import { revokeKey, updateKey } from '../../admin/keys.ts';
import { AccountPatchSchema, KeyPatchSchema, type KeyPatch } from '../../admin/schemas.ts';
import { notFound } from '../../core/errors.ts';
import type { Gateway } from '../../gateway.ts';
import type { AccountRecord } from '../../store/repositories/accounts.ts';
import type { ConsoleContext } from '../context.ts';
import { requireAdminHook } from '../security/session.ts';
import { readLedgerPage } from '../services/ledger-page.ts';
import { keysPage } from '../../store/repositories/api-keys-page.ts';
import { consoleKeyView } from '../views.ts';
import { usdString } from '../../core/money.ts';

type IdParams = { Params: { id: string } };

const ListQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })), before: Type.Optional(Type.String({ maxLength: 100 })), search: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);
const LedgerQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })), before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })) },
  { additionalProperties: false },
);
const CreditBody = Type.Object(
  { amount_usd: Type.Number({ minimum: -1_000_000, maximum: 1_000_000 }), note: Type.String({ minLength: 1, maxLength: 1000 }) },
  { additionalProperties: false },
);

function accountConsoleView(gateway: Gateway, record: AccountRecord) {
  return {
    id: record.id,
    name: record.name,
    email: record.email,
    balance_usd: usdString(gateway.ledger.balance(record.id) ?? record.balanceNano),
    reserved_usd: usdString(gateway.ledger.reserved(record.id)),
    disabled: record.disabled,
    created_at: new Date(record.createdAt).toISOString(),
  };
}

/** Accounts: search, balance, credit or debit with a note, their keys and journal, disable. */
export function registerAdminAccountRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const gateway = ctx.gateway;
  const opts = { preHandler: requireAdminHook };

  app.get<{ Querystring: Static<typeof ListQuery> }>('/console/api/admin/accounts', { ...opts, schema: { querystring: ListQuery } }, async (request) => {
    const q = request.query;
    const limit = q.limit ?? 25;
    const rows = await gateway.repos.accounts.list({ limit: limit + 1, ...(q.before && { before: q.before }), ...(q.search && { search: q.search.trim() }) });
    const page = rows.slice(0, limit);
    return { data: page.map((r) => accountConsoleView(gateway, r)), next_before: rows.length > limit ? page[page.length - 1]!.id : null };
  });

  app.get<IdParams>('/console/api/admin/accounts/:id', opts, async (request) => {
    const account = await findAccount(gateway, request.params.id);
    const [users, keys] = await Promise.all([ctx.users.byAccount(account.id), keysPage(gateway.store.db, account.id, 200)]);
    return {
      account: accountConsoleView(gateway, account),
      users: users.map((u) => ({ id: u.id, email: u.email, name: u.name, disabled: u.disabled, created_at: new Date(u.createdAt).toISOString() })),
      keys: keys.map((k) => consoleKeyView(gateway, k)),
    };
  });

  app.patch<IdParams & { Body: Static<typeof AccountPatchSchema> }>('/console/api/admin/accounts/:id', { ...opts, schema: { body: AccountPatchSchema } }, async (request) =>
    accountConsoleView(gateway, await updateAccount(gateway, request.params.id, request.body)),
  );

  // the page sends an Idempotency-Key per submitted form, so a double click credits once
  app.post<IdParams & { Body: Static<typeof CreditBody> }>('/console/api/admin/accounts/:id/credit', { ...opts, schema: { body: CreditBody } }, async (request) => {
    const idempotencyKey = request.headers['idempotency-key'];
    const note = `${request.body.note} (by ${request.signedIn!.user.email})`;
    await creditAccount(gateway, request.params.id, { amount_usd: request.body.amount_usd, note }, typeof idempotencyKey === 'string' ? idempotencyKey : undefined, request.id);
    return accountConsoleView(gateway, await findAccount(gateway, request.params.id));
  });

  app.get<IdParams & { Querystring: Static<typeof LedgerQuery> }>('/console/api/admin/accounts/:id/ledger', { ...opts, schema: { querystring: LedgerQuery } }, async (request) => {
    const account = await findAccount(gateway, request.params.id);
    return readLedgerPage(gateway, account.id, request.query.limit ?? 50, request.query.before);
  });

  app.patch<IdParams & { Body: KeyPatch }>('/console/api/admin/keys/:id', { ...opts, schema: { body: KeyPatchSchema } }, async (request) => ({
    key: consoleKeyView(gateway, await updateKey(gateway, request.params.id, request.body)),
  }));

  app.delete<IdParams>('/console/api/admin/keys/:id', opts, async (request) => {
    const record = await gateway.repos.apiKeys.get(request.params.id);
    if (!record || record.revoked) throw notFound(`No key with id "${request.params.id}".`, 'id');
    await revokeKey(gateway, request.params.id);
    return { id: request.params.id, revoked: true };
  });
}
