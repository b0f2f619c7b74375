import type { FastifyInstance } from 'fastify';
import { listModels, modelView, putModel } from '../../admin/models.ts';
import { createProvider, findProvider, listProviders, providerView, removeProvider, updateProvider } from '../../admin/providers.ts';
import { ModelPutSchema, ProviderCreateSchema, ProviderPatchSchema, type ModelPut, type ProviderCreate, type ProviderPatchBody } from '../../admin/schemas.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import type { Gateway } from '../../gateway.ts';
import { familyNames } from '../../vendors/registry.ts';
import type { ConsoleContext } from '../context.ts';
import { requireAdminHook } from '../security/session.ts';
import { pricesView } from '../services/model-prices.ts';
import { testProvider } from '../services/provider-test.ts';

type IdParams = { Params: { id: string } };

/** probe results shown beside each provider on the providers page */
const STRIP_SIZE = 20;

function consoleModelView(gateway: Gateway, model: CatalogueModel) {
  const view = modelView(gateway, model);
  return { ...view, pricing: pricesView(model.pricingUsd) ?? {} };
}

/** Providers (the upstream key is write-only) and the model catalogue with its prices. */
export function registerAdminCatalogueRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const gateway = ctx.gateway;
  const opts = { preHandler: requireAdminHook };

  app.get('/console/api/admin/providers', opts, async () => ({
    families: familyNames(),
    data: (await listProviders(gateway)).map((p) => ({ ...providerView(gateway, p), probes: gateway.health.history(p.id).slice(0, STRIP_SIZE) })),
  }));

  app.post<{ Body: ProviderCreate }>('/console/api/admin/providers', { ...opts, schema: { body: ProviderCreateSchema } }, async (request, reply) =>
    reply.code(201).send(providerView(gateway, await createProvider(gateway, request.body))),
  );

  app.patch<IdParams & { Body: ProviderPatchBody }>('/console/api/admin/providers/:id', { ...opts, schema: { body: ProviderPatchSchema } }, async (request) => {
    await findProvider(gateway, request.params.id);
    return providerView(gateway, await updateProvider(gateway, request.params.id, request.body));
  });

  app.delete<IdParams>('/console/api/admin/providers/:id', opts, async (request) => {
    await removeProvider(gateway, request.params.id);
    return { id: request.params.id, deleted: true };
  });

  app.post<IdParams>('/console/api/admin/providers/:id/test', opts, async (request) => {
    await findProvider(gateway, request.params.id);
    return testProvider(gateway, request.params.id);
  });

  // the scheduled health probes' results, newest first (src/health)
  app.get<IdParams>('/console/api/admin/providers/:id/health', opts, async (request) => {
    const record = await findProvider(gateway, request.params.id);
    return {
      id: record.id,
      health: providerView(gateway, record).health,
      interval_ms: gateway.config.health.intervalMs,
      data: gateway.health.history(record.id),
    };
  });

  app.get('/console/api/admin/models', opts, async () => ({ data: listModels(gateway).map((m) => consoleModelView(gateway, m)) }));

  app.put<{ Body: ModelPut }>('/console/api/admin/models/*', { ...opts, schema: { body: ModelPutSchema } }, async (request) => {
    const id = (request.params as Record<string, string>)['*'] ?? '';
    if (!id) throw invalidRequest('The model id is missing from the path.', 'model');
    return consoleModelView(gateway, await putModel(gateway, id, request.body));
  });
}
