import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { notFound } from '../../core/errors.ts';
import type { ConsoleContext } from '../context.ts';
import { csvLine } from '../csv.ts';
import { requireAdminHook } from '../security/session.ts';
import { codeView, createCodeBatch } from '../services/codes.ts';

const Status = {
  anyOf: [{ type: 'string', const: 'unused' }, { type: 'string', const: 'redeemed' }, { type: 'string', const: 'revoked' }, { type: 'string', const: 'expired' }],
} as const;
const ListQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200 },
    before: { type: 'string', maxLength: 100 },
    batch: { type: 'string', maxLength: 100 },
    status: Status,
  },
  additionalProperties: false,
} as const;
const ExportQuery = { type: 'object', properties: { batch: { type: 'string', maxLength: 100 }, status: Status }, additionalProperties: false } as const;
const CreateBody = {
  type: 'object',
  required: ['amount_usd', 'count'],
  properties: {
    amount_usd: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
    count: { type: 'integer', minimum: 1, maximum: 1000 },
    expires_at: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    note: { type: 'string', maxLength: 200 },
  },
  additionalProperties: false,
} as const;

/** Redemption codes: batch creation, list by status and batch, revoke, CSV export. */
export function registerAdminCodeRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const opts = { preHandler: requireAdminHook };

  app.get<{ Querystring: Static<typeof ListQuery> }>('/console/api/admin/codes', { ...opts, schema: { querystring: ListQuery } }, async (request) => {
    const q = request.query;
    const limit = q.limit ?? 50;
    const rows = await ctx.codes.list({ limit: limit + 1, ...(q.before && { before: q.before }), ...(q.batch && { batch: q.batch }), ...(q.status && { status: q.status }) });
    const page = rows.slice(0, limit);
    return { data: page.map(codeView), next_before: rows.length > limit ? page[page.length - 1]!.id : null };
  });

  app.post<{ Body: Static<typeof CreateBody> }>('/console/api/admin/codes', { ...opts, schema: { body: CreateBody } }, async (request, reply) =>
    reply.code(201).send(await createCodeBatch(ctx, request.body)),
  );

  app.delete<{ Params: { id: string } }>('/console/api/admin/codes/:id', opts, async (request) => {
    if (!(await ctx.codes.revoke(request.params.id))) throw notFound('No unused code with this id.', 'id');
    return { id: request.params.id, revoked: true };
  });

  app.get<{ Querystring: Static<typeof ExportQuery> }>('/console/api/admin/codes/export.csv', { ...opts, schema: { querystring: ExportQuery } }, async (request, reply) => {
    const q = request.query;
    async function* lines() {
      yield csvLine(['code', 'amount_usd', 'status', 'batch', 'note', 'expires_at', 'redeemed_by', 'redeemed_at', 'created_at']);
      let before: string | undefined;
      for (;;) {
        const page = await ctx.codes.list({ limit: 500, ...(before && { before }), ...(q.batch && { batch: q.batch }), ...(q.status && { status: q.status }) });
        for (const c of page.map(codeView)) yield csvLine([c.code, c.amount_usd, c.status, c.batch, c.note, c.expires_at, c.redeemed_by, c.redeemed_at, c.created_at]);
        if (page.length < 500) return;
        before = page[page.length - 1]!.id;
      }
    }
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="codes-${q.batch ?? 'all'}.csv"`)
      .header('cache-control', 'no-store');
    return reply.send(Readable.from(lines()));
  });
}
