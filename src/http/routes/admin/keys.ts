import type { FastifyInstance } from 'fastify';
import { keyView, revokeKey, updateKey } from '../../../admin/keys.ts';
import { KeyPatchSchema, UsageQuerySchema, type KeyPatch, type UsageQueryParams } from '../../../admin/schemas.ts';
import { notFound } from '../../../core/errors.ts';
import { nanoToUsd } from '../../../core/money.ts';
import type { AdminDeps } from '../../../admin/deps.ts';
import type { IdParams } from '../params.ts';


export function registerKeyRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get<IdParams>('/admin/keys/:id', async (request) => {
    const record = await deps.repos.apiKeys.get(request.params.id);
    if (!record || record.revoked) throw notFound(`No key with id "${request.params.id}".`, 'id');
    return keyView(deps, record);
  });

  app.patch<IdParams & { Body: KeyPatch }>('/admin/keys/:id', { schema: { body: KeyPatchSchema } }, async (request) =>
    keyView(deps, await updateKey(deps, request.params.id, request.body)),
  );

  app.delete<IdParams>('/admin/keys/:id', async (request) => {
    await revokeKey(deps, request.params.id);
    return { id: request.params.id, deleted: true };
  });

  app.get<{ Querystring: UsageQueryParams }>('/admin/usage', { schema: { querystring: UsageQuerySchema } }, async (request) => {
    // read-your-writes: rows queued by requests that already answered are flushed first
    await deps.sync.refresh();
    const q = request.query;
    const rows = await deps.repos.usage.list({
      limit: q.limit ?? 100,
      ...(q.account_id && { accountId: q.account_id }),
      ...(q.key_id && { keyId: q.key_id }),
      ...(q.model && { model: q.model }),
      ...(q.before !== undefined && { beforeId: q.before }),
    });
    return {
      object: 'list',
      data: rows.map((r) => ({
        id: r.id,
        request_id: r.request_id,
        created_at: new Date(r.created_at).toISOString(),
        account_id: r.account_id,
        key_id: r.key_id,
        model: r.model,
        endpoint: r.endpoint,
        provider_id: r.provider_id,
        status: r.status,
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
        cached_tokens: r.cached_tokens,
        units: r.units,
        cost_usd: nanoToUsd(r.cost_nano),
        latency_ms: r.latency_ms,
        estimated: r.estimated === 1,
        error_type: r.error_type,
        session_id: r.session_id,
      })),
    };
  });
}
