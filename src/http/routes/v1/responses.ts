import type { FastifyInstance } from 'fastify';
import { notFound } from '../../../core/errors.ts';
import { deletedResponse, inputItemsList, storedResponseObject } from '../../../dialects/responses/stored.ts';
import type { StoredResponseRouteDeps } from '../deps.ts';

type IdParams = { Params: { id: string } };
type ItemsQuery = { Params: { id: string }; Querystring: { after?: string; limit?: number; order?: 'asc' | 'desc' } };

const itemsQuery = {
  type: 'object',
  properties: { after: { type: 'string', maxLength: 256 }, limit: { type: 'integer', minimum: 1, maximum: 100 }, order: { type: 'string', enum: ['asc', 'desc'] } },
} as const;

const missing = (id: string) => notFound(`Response with id '${id}' not found.`, 'response_id');

/**
 * The stored responses of the Responses dialect (contract §4), each only to keys of the account
 * that created it: another account's id, an expired or deleted one is a 404.
 */
export function registerStoredResponseRoutes(app: FastifyInstance, deps: StoredResponseRouteDeps): void {
  app.get<IdParams>('/v1/responses/:id', async (request) => {
    const stored = await deps.responses.get(request.principal!.accountId, request.params.id);
    if (!stored) throw missing(request.params.id);
    return storedResponseObject(stored);
  });

  app.delete<IdParams>('/v1/responses/:id', async (request) => {
    if (!(await deps.responses.delete(request.principal!.accountId, request.params.id))) throw missing(request.params.id);
    return deletedResponse(request.params.id);
  });

  app.get<ItemsQuery>('/v1/responses/:id/input_items', { schema: { querystring: itemsQuery } }, async (request) => {
    const page = await deps.responses.listInputItems(request.principal!.accountId, request.params.id, request.query);
    if (!page) throw missing(request.params.id);
    return inputItemsList(page);
  });
}
