import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { accountKeysPage, createKey, findKey, limitsPatch, limitsSetBy, revokeKey, rollKey, updateKey } from '../../admin/keys.ts';
import { KeyCreateSchema, KeyPatchSchema, type KeyCreate, type KeyPatch } from '../../admin/schemas.ts';
import { notFound } from '../../core/errors.ts';
import { nanoToUsd } from '../../core/money.ts';
import type { ConsoleContext } from '../context.ts';
import { accountOf, requireCustomerHook } from '../security/session.ts';
import { refuseLoosening } from '../services/own-key-limits.ts';
import { consoleKeyView } from '../views.ts';

type IdParams = { Params: { id: string } };
const PageQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100 }, before: { type: 'string', maxLength: 100 } },
  additionalProperties: false,
} as const;

/** The customer's own keys. A key of another account answers 404, as if it did not exist. */
export function registerKeyRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const deps = ctx.deps;
  const ownKey = async (request: FastifyRequest, id: string) => {
    const record = await findKey(deps, id);
    if (record.accountId !== accountOf(request)) throw notFound(`No key with id "${id}".`, 'id');
    return record;
  };
  const opts = { preHandler: requireCustomerHook };

  app.get<{ Querystring: Static<typeof PageQuery> }>('/console/api/keys', { ...opts, schema: { querystring: PageQuery } }, async (request) => {
    const limit = request.query.limit ?? 20;
    const rows = await accountKeysPage(deps, accountOf(request), limit + 1, request.query.before);
    const page = rows.slice(0, limit);
    return { data: page.map((r) => consoleKeyView(deps, r)), next_before: rows.length > limit ? page[page.length - 1]!.id : null };
  });

  app.post<{ Body: KeyCreate }>('/console/api/keys', { ...opts, schema: { body: KeyCreateSchema } }, async (request, reply) => {
    const settings = await ctx.settings.read();
    const body: KeyCreate = {
      ...request.body,
      rpm: request.body.rpm === undefined ? settings.default_key_rpm : request.body.rpm,
      tpm: request.body.tpm === undefined ? settings.default_key_tpm : request.body.tpm,
      max_spend_usd:
        request.body.max_spend_usd === undefined
          ? settings.default_key_max_spend_nano === null
            ? null
            : nanoToUsd(settings.default_key_max_spend_nano)
          : request.body.max_spend_usd,
    };
    const { record, secret } = await createKey(deps, accountOf(request), body, 'customer');
    reply.header('cache-control', 'no-store');
    return reply.code(201).send({ key: consoleKeyView(deps, record), secret });
  });

  app.patch<IdParams & { Body: KeyPatch }>('/console/api/keys/:id', { ...opts, schema: { body: KeyPatchSchema } }, async (request) => {
    // the customer's own limits: they may tighten the operator's, never lift them
    const current = await ownKey(request, request.params.id);
    refuseLoosening(current.operator, limitsPatch(request.body, limitsSetBy(current, 'customer')));
    return { key: consoleKeyView(deps, await updateKey(deps, request.params.id, request.body, 'customer')) };
  });

  app.post<IdParams>('/console/api/keys/:id/roll', opts, async (request, reply) => {
    await ownKey(request, request.params.id);
    const { record, secret } = await rollKey(deps, request.params.id);
    reply.header('cache-control', 'no-store');
    return { key: consoleKeyView(deps, record), secret };
  });

  app.delete<IdParams>('/console/api/keys/:id', opts, async (request) => {
    await ownKey(request, request.params.id);
    await revokeKey(deps, request.params.id);
    return { id: request.params.id, revoked: true };
  });
}
