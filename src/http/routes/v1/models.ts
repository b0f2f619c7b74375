import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../../auth/key-store.ts';
import { modelNotFound } from '../../../core/errors.ts';
import type { ModelListDeps } from '../deps.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import type { WildcardParams } from '../params.ts';

function modelObject(deps: ModelListDeps, id: string) {
  const created = Math.min(
    ...deps.router
      .all()
      .filter((p) => p.record.enabled && p.record.models.includes(id))
      .map((p) => Math.floor(p.record.createdAt / 1000)),
  );
  return { id, object: 'model' as const, created: Number.isFinite(created) ? created : 0, owned_by: deps.catalogue.get(id).ownedBy };
}

/** The models this key may use and some enabled provider serves. */
function visibleModels(deps: ModelListDeps, principal: Principal): string[] {
  const allowed = principal.key.models;
  return deps.router
    .servedModels()
    .filter((id) => allowed === null || allowed.includes(id))
    .sort();
}

export function registerModelRoutes(app: FastifyInstance, deps: ModelListDeps): void {
  app.get('/v1/models', async (request, reply) => {
    reply.header('x-request-id', request.correlationId);
    return { object: 'list', data: visibleModels(deps, request.principal!).map((id) => modelObject(deps, id)) };
  });

  app.get<WildcardParams>('/v1/models/*', async (request) => {
    const id = request.params['*'];
    checkModelAllowed(request.principal!, id);
    if (!deps.router.serves(id)) throw modelNotFound(id);
    return modelObject(deps, id);
  });
}
