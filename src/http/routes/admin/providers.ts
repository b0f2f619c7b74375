import type { FastifyInstance } from 'fastify';
import { createProvider, findProvider, listProviders, providerView, removeProvider, updateProvider } from '../../../admin/providers.ts';
import { ProviderCreateSchema, ProviderPatchSchema, type ProviderCreate, type ProviderPatchBody } from '../../../admin/schemas.ts';
import type { Gateway } from '../../../gateway.ts';
import type { IdParams } from '../params.ts';


export function registerProviderRoutes(app: FastifyInstance, gateway: Gateway): void {
  app.post<{ Body: ProviderCreate }>('/admin/providers', { schema: { body: ProviderCreateSchema } }, async (request, reply) => {
    const record = await createProvider(gateway, request.body);
    return reply.code(201).send(providerView(gateway, record));
  });

  app.get('/admin/providers', async () => ({
    object: 'list',
    data: (await listProviders(gateway)).map((p) => providerView(gateway, p)),
  }));

  app.get<IdParams>('/admin/providers/:id', async (request) => providerView(gateway, await findProvider(gateway, request.params.id)));

  app.patch<IdParams & { Body: ProviderPatchBody }>('/admin/providers/:id', { schema: { body: ProviderPatchSchema } }, async (request) =>
    providerView(gateway, await updateProvider(gateway, request.params.id, request.body)),
  );

  app.delete<IdParams>('/admin/providers/:id', async (request) => {
    await removeProvider(gateway, request.params.id);
    return { id: request.params.id, deleted: true };
  });
}
