import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { accountView, createAccount, creditAccount, findAccount, updateAccount } from '../../../admin/accounts.ts';
import { createKey, keyView } from '../../../admin/keys.ts';
import { AccountCreateSchema, AccountPatchSchema, CreditSchema, KeyCreateSchema, type KeyCreate } from '../../../admin/schemas.ts';
import { nanoToUsd } from '../../../core/money.ts';
import type { AdminDeps } from '../../../admin/deps.ts';
import type { IdParams } from '../params.ts';


const ListQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
    before: { type: 'string', maxLength: 100 },
    search: { type: 'string', maxLength: 200 },
  },
  additionalProperties: false,
} as const;

const LedgerQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 }, before: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
  additionalProperties: false,
} as const;

export function registerAccountRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.post<{ Body: Static<typeof AccountCreateSchema> }>('/admin/accounts', { schema: { body: AccountCreateSchema } }, async (request, reply) => {
    const record = await createAccount(deps, request.body);
    return reply.code(201).send(accountView(deps, record));
  });

  app.get<{ Querystring: Static<typeof ListQuery> }>('/admin/accounts', { schema: { querystring: ListQuery } }, async (request) => {
    const q = request.query;
    const rows = await deps.repos.accounts.list({ limit: q.limit ?? 100, ...(q.before && { before: q.before }), ...(q.search && { search: q.search }) });
    return { object: 'list', data: rows.map((r) => accountView(deps, r)) };
  });

  app.get<IdParams>('/admin/accounts/:id', async (request) => accountView(deps, await findAccount(deps, request.params.id)));

  app.patch<IdParams & { Body: Static<typeof AccountPatchSchema> }>('/admin/accounts/:id', { schema: { body: AccountPatchSchema } }, async (request) =>
    accountView(deps, await updateAccount(deps, request.params.id, request.body)),
  );

  app.post<IdParams & { Body: Static<typeof CreditSchema> }>('/admin/accounts/:id/credit', { schema: { body: CreditSchema } }, async (request) => {
    const idempotencyKey = request.headers['idempotency-key'];
    const balance = await creditAccount(deps, request.params.id, request.body, typeof idempotencyKey === 'string' ? idempotencyKey : undefined, request.id);
    return { balance_usd: balance };
  });

  app.get<IdParams & { Querystring: Static<typeof LedgerQuery> }>('/admin/accounts/:id/ledger', { schema: { querystring: LedgerQuery } }, async (request) => {
    const account = await findAccount(deps, request.params.id);
    await deps.sync.refresh();
    const rows = await deps.repos.ledger.listByAccount(account.id, request.query.limit ?? 100, request.query.before);
    return {
      object: 'list',
      balance_usd: nanoToUsd(deps.ledger.balance(account.id) ?? 0),
      data: rows.map((r) => ({
        id: r.id,
        kind: r.kind,
        amount_usd: nanoToUsd(r.amount_nano),
        request_id: r.request_id,
        key_id: r.key_id,
        note: r.note,
        created_at: new Date(r.created_at).toISOString(),
      })),
    };
  });

  app.post<IdParams & { Body: KeyCreate }>('/admin/accounts/:id/keys', { schema: { body: KeyCreateSchema } }, async (request, reply) => {
    const { record, secret } = await createKey(deps, request.params.id, request.body);
    return reply.code(201).send({ ...keyView(deps, record), key: secret });
  });

  app.get<IdParams>('/admin/accounts/:id/keys', async (request) => {
    const account = await findAccount(deps, request.params.id);
    return { object: 'list', data: (await deps.repos.apiKeys.listByAccount(account.id)).map((k) => keyView(deps, k)) };
  });
}
