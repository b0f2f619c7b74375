import type { FastifyInstance } from 'fastify';
import { createProvider, findProvider, listProviders, providerView, removeProvider, updateProvider } from '../../../admin/providers.ts';
import { ProviderCreateSchema, ProviderPatchSchema, type ProviderCreate, type ProviderPatchBody } from '../../../admin/schemas.ts';
import type { AdminDeps } from '../../../admin/deps.ts';
import type { IdParams } from '../params.ts';


export function registerProviderRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.post<{ Body: ProviderCreate }>('/admin/providers', { schema: { body: ProviderCreateSchema } }, async (request, reply) => {
    const record = await createProvider(deps, request.body);
    return reply.code(201).send(providerView(deps, record));
  });

  app.get('/admin/providers', async () => ({
    object: 'list',
    data: (await listProviders(deps)).map((p) => providerView(deps, p)),
  }));

  app.get<IdParams>('/admin/providers/:id', async (request) => providerView(deps, await findProvider(deps, request.params.id)));

  app.patch<IdParams & { Body: ProviderPatchBody }>('/admin/providers/:id', { schema: { body: ProviderPatchSchema } }, async (request) =>
    providerView(deps, await updateProvider(deps, request.params.id, request.body)),
  );

  app.delete<IdParams>('/admin/providers/:id', async (request) => {
    await removeProvider(deps, request.params.id);
    return { id: request.params.id, deleted: true };
  });
}
