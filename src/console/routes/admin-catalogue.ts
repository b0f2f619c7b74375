import type { FastifyInstance } from 'fastify';
import type { WildcardParams } from '../../http/routes/params.ts';
import { listModels, modelView, pricesAsStrings, putModel } from '../../admin/models.ts';
import { createProvider, findProvider, listProviders, providerView, removeProvider, updateProvider } from '../../admin/providers.ts';
import { ModelPutSchema, ProviderCreateSchema, ProviderPatchSchema, type ModelPut, type ProviderCreate, type ProviderPatchBody } from '../../admin/schemas.ts';
import { invalidRequest } from '../../core/errors.ts';
import { familyNames } from '../../vendors/registry.ts';
import type { ConsoleContext } from '../context.ts';
import { requireAdminHook } from '../security/session.ts';
import { testProvider } from '../../admin/provider-test.ts';

type IdParams = { Params: { id: string } };

/** probe results shown beside each provider on the providers page */
const STRIP_SIZE = 20;

/** Providers (the upstream key is write-only) and the model catalogue with its prices. */
export function registerAdminCatalogueRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const deps = ctx.deps;
  const opts = { preHandler: requireAdminHook };

  app.get('/console/api/admin/providers', opts, async () => ({
    families: familyNames(),
    data: (await listProviders(deps)).map((p) => ({ ...providerView(deps, p), probes: deps.health.history(p.id).slice(0, STRIP_SIZE) })),
  }));

  app.post<{ Body: ProviderCreate }>('/console/api/admin/providers', { ...opts, schema: { body: ProviderCreateSchema } }, async (request, reply) =>
    reply.code(201).send(providerView(deps, await createProvider(deps, request.body))),
  );

  app.patch<IdParams & { Body: ProviderPatchBody }>('/console/api/admin/providers/:id', { ...opts, schema: { body: ProviderPatchSchema } }, async (request) => {
    await findProvider(deps, request.params.id);
    return providerView(deps, await updateProvider(deps, request.params.id, request.body));
  });

  app.delete<IdParams>('/console/api/admin/providers/:id', opts, async (request) => {
    await removeProvider(deps, request.params.id);
    return { id: request.params.id, deleted: true };
  });

  app.post<IdParams>('/console/api/admin/providers/:id/test', opts, async (request) => {
    await findProvider(deps, request.params.id);
    return testProvider(deps, request.params.id);
  });

  // the scheduled health probes' results, newest first (src/health)
  app.get<IdParams>('/console/api/admin/providers/:id/health', opts, async (request) => {
    const record = await findProvider(deps, request.params.id);
    return {
      id: record.id,
      health: providerView(deps, record).health,
      interval_ms: deps.config.health.intervalMs,
      data: deps.health.history(record.id),
    };
  });

  app.get('/console/api/admin/models', opts, async () => ({ data: listModels(deps).map((m) => modelView(deps, m, pricesAsStrings)) }));

  app.put<{ Body: ModelPut } & WildcardParams>('/console/api/admin/models/*', { ...opts, schema: { body: ModelPutSchema } }, async (request) => {
    const id = request.params['*'] ?? '';
    if (!id) throw invalidRequest('The model id is missing from the path.', 'model');
    return modelView(deps, await putModel(deps, id, request.body), pricesAsStrings);
  });
}
