import type { FastifyInstance } from 'fastify';
import { modelNotFound } from '../../../core/errors.ts';
import { googleModel, googleModelList } from '../../../dialects/google/encode-models.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import type { ModelListDeps } from '../deps.ts';
import type { WildcardParams } from '../params.ts';

type ListQuery = { Querystring: { pageSize?: string; pageToken?: string } };

/**
 * Google's model listing: `GET /v1beta/models[/{model}]`, and `GET /v1/models[/{model}]` for a
 * request that carries its key the way Google's clients do (`x-goog-api-key` or `?key=`) — with
 * a Bearer key the same paths are OpenAI's list. Registered in the Google dialect's scope.
 */
export function registerGoogleModelRoutes(scope: FastifyInstance, deps: ModelListDeps): void {
  for (const prefix of ['/v1beta', '/v1']) {
    const constraints = prefix === '/v1' ? { googleKey: 'yes' } : undefined;
    scope.get<ListQuery>(`${prefix}/models`, { ...(constraints && { constraints }) }, async (request) => {
      const allowed = request.principal!.key.models;
      const ids = deps.router.servedModels().filter((id) => allowed === null || allowed.includes(id)).sort();
      const pageSize = Math.min(1000, Math.max(1, Number(request.query.pageSize) || 50));
      return googleModelList(ids.map((id) => deps.catalogue.get(id)), pageSize, request.query.pageToken);
    });
    scope.get<WildcardParams>(`${prefix}/models/*`, { ...(constraints && { constraints }) }, async (request) => {
      const id = request.params['*'].replace(/^models\//, '');
      checkModelAllowed(request.principal!, id);
      if (!deps.router.serves(id)) throw modelNotFound(id);
      return googleModel(deps.catalogue.get(id));
    });
  }
}

/**
 * The `googleKey` route constraint: "yes" when the key came in Google's header or query
 * parameter, so `GET /v1/models` answers a Google client in its shape and everyone else in OpenAI's.
 */
export const googleKeyConstraint = {
  name: 'googleKey',
  // a request with a Google key still reaches every route that has no such constraint
  mustMatchWhenDerived: false,
  storage() {
    const handlers = new Map<string, unknown>();
    return {
      get: (value: string) => (handlers.get(value) ?? null) as never,
      set: (value: string, handler: unknown) => void handlers.set(value, handler),
    };
  },
  deriveConstraint(request: { headers: Record<string, string | string[] | undefined>; url?: string }): string | undefined {
    if (request.headers['x-goog-api-key']) return 'yes';
    return /[?&]key=[^&]/.test(request.url ?? '') ? 'yes' : undefined;
  },
  validate() {},
};
