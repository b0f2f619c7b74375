import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RerankResult } from '../../../core/ir/media.ts';
import { decodeModeration, decodeRerank, DEFAULT_MODERATION_MODEL, encodeRerank } from '../../../dialects/openai/decode-retrieval.ts';
import { moderationSchema, rerankSchema } from '../../../dialects/openai/media-schemas.ts';
import type { PipelineDeps } from '../../../pipeline/types.ts';
import type { DecodedResponse } from '../../../core/contracts/vendor-codec.ts';
import { counterFor } from '../../../pipeline/off-loop-counter.ts';
import { bodyBytesOf } from '../../../core/tokens/prompt-estimate.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import { contextOf } from '../../request-context.ts';

/** Moderations and rerank: priced per request (and per token where configured). */
export function registerRetrievalRoutes(fastify: FastifyInstance, deps: PipelineDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/v1/moderations', { schema: { body: moderationSchema } }, async (request, reply) => {
    const body = request.body;
    const model = body.model ?? DEFAULT_MODERATION_MODEL;
    checkModelAllowed(request.principal!, model);
    const call = decodeModeration(body, deps.catalogue.get(model));
    await runOperation(
      deps,
      contextOf(request),
      { operation: 'moderations', endpoint: '/v1/moderations', model, call, stream: false, estimate: { inputTokens: 0, outputTokens: 0, units: 1 }, meter: { unit: 'requests' } },
      reply,
    );
    return reply;
  });

  app.post('/v1/rerank', { schema: { body: rerankSchema } }, async (request, reply) => {
    const body = request.body;
    const model = body.model;
    checkModelAllowed(request.principal!, model);
    const catalogued = deps.catalogue.get(model);
    const counter = counterFor((count) => decodeRerank(body, catalogued, count), bodyBytesOf(request.headers));
    const { call, tokens } = decodeRerank(body, catalogued, typeof counter === 'function' ? counter : await counter);
    await runOperation(
      deps,
      contextOf(request),
      {
        operation: 'rerank',
        endpoint: '/v1/rerank',
        model,
        call,
        stream: false,
        // one search unit per 100 documents is the most a vendor bills for one query
        estimate: { inputTokens: tokens, outputTokens: 0, units: Math.max(1, Math.ceil(call.documents.length / 100)) },
        meter: { unit: 'requests' },
        respond: async (decoded: DecodedResponse<RerankResult>) => ({ body: encodeRerank(decoded.result!, call, model), contentType: 'application/json' }),
      },
      reply,
    );
    return reply;
  });
}
