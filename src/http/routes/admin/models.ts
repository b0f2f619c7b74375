import type { FastifyInstance } from 'fastify';
import { listModels, modelView, putModel } from '../../../admin/models.ts';
import { ModelPutSchema, type ModelPut } from '../../../admin/schemas.ts';
import { invalidRequest } from '../../../core/errors.ts';
import type { WildcardParams } from '../params.ts';
import type { AdminDeps } from '../../../admin/deps.ts';

export function registerModelAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/admin/models', async () => ({
    object: 'list',
    data: listModels(deps).map((m) => modelView(deps, m)),
  }));

  // model ids may contain slashes (e.g. "meta-llama/Llama-3.1-8B"), hence the wildcard
  app.put<WildcardParams & { Body: ModelPut }>('/admin/models/*', { schema: { body: ModelPutSchema } }, async (request) => {
    const id = request.params['*'];
    if (!id) throw invalidRequest('The model id is missing from the path.', 'model');
    return modelView(deps, await putModel(deps, id, request.body));
  });
}
