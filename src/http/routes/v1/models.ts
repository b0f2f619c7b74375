import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../../auth/key-store.ts';
import { modelNotFound } from '../../../core/errors.ts';
import type { Gateway } from '../../../gateway.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import type { WildcardParams } from '../params.ts';

function modelObject(gateway: Gateway, id: string) {
  const created = Math.min(
    ...gateway.router
      .all()
      .filter((p) => p.record.enabled && p.record.models.includes(id))
      .map((p) => Math.floor(p.record.createdAt / 1000)),
  );
  return { id, object: 'model' as const, created: Number.isFinite(created) ? created : 0, owned_by: gateway.catalogue.get(id).ownedBy };
}

/** The models this key may use and some enabled provider serves. */
function visibleModels(gateway: Gateway, principal: Principal): string[] {
  const allowed = principal.key.models;
  return gateway.router
    .servedModels()
    .filter((id) => allowed === null || allowed.includes(id))
    .sort();
}

export function registerModelRoutes(app: FastifyInstance, gateway: Gateway): void {
  app.get('/v1/models', async (request, reply) => {
    reply.header('x-request-id', request.correlationId);
    return { object: 'list', data: visibleModels(gateway, request.principal!).map((id) => modelObject(gateway, id)) };
  });

  app.get<WildcardParams>('/v1/models/*', async (request) => {
    const id = request.params['*'];
    checkModelAllowed(request.principal!, id);
    if (!gateway.router.serves(id)) throw modelNotFound(id);
    return modelObject(gateway, id);
  });
}
