import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { modelNotFound, notFound } from '../../../core/errors.ts';
import type { ImageResult } from '../../../core/ir/media.ts';
import { decodePredict } from '../../../dialects/google/decode-predict.ts';
import { encodePredictions } from '../../../dialects/google/encode-predict.ts';
import { predictSchema } from '../../../dialects/google/predict-schema.ts';
import type { MediaRouteDeps } from '../deps.ts';
import type { DecodedResponse } from '../../../core/contracts/vendor-codec.ts';
import { counterFor } from '../../../pipeline/off-loop-counter.ts';
import { bodyBytesOf } from '../../../core/tokens/prompt-estimate.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { bearerToken, checkModelAllowed } from '../../authenticate.ts';
import { modelParam } from '../../../core/model-param.ts';
import { contextOf } from '../../request-context.ts';
import type { WildcardParams } from '../params.ts';

/** The key of a `/v1beta` request: `Authorization: Bearer`, or Google's `x-goog-api-key` (or `?key=`). */
export function googleKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-goog-api-key'];
  if (typeof header === 'string' && header) return header;
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  // read in onRequest, before any route's schema: the query is whatever the client sent
  const query: unknown = request.query;
  const key = typeof query === 'object' && query !== null && 'key' in query ? query.key : undefined;
  return typeof key === 'string' && key ? key : undefined;
}

/** Whether the client authenticated the way Google's own library does: it then gets the vendor's field forms. */
const speaksGoogle = (request: FastifyRequest) => !bearerToken(request);

/** `POST /v1beta/models/{model}:predict` (native image prediction, contract §3). */
export function registerPredictRoutes(fastify: FastifyInstance, deps: MediaRouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // explicit route generics stop inference from the schema: the body's type is named here too
  app.post<WildcardParams & { Body: Static<typeof predictSchema> }>('/v1beta/models/*', { schema: { body: predictSchema } }, async (request, reply) => {
    const target = request.params['*'];
    const colon = target.lastIndexOf(':');
    const model = colon > 0 ? target.slice(0, colon) : target;
    const method = colon > 0 ? target.slice(colon + 1) : '';
    if (method !== 'predict') throw notFound(`There is no POST /v1beta/models/${target}; this gateway serves {model}:predict here.`, null, 'unknown_path');
    modelParam(model);
    // an object: its schema refused anything else
    const body = request.body;
    checkModelAllowed(request.principal!, model);
    if (!deps.router.serves(model)) throw modelNotFound(model);
    const catalogued = deps.catalogue.get(model);
    const counter = counterFor((count) => decodePredict(body, catalogued, count), bodyBytesOf(request.headers));
    const decoded = decodePredict(body, catalogued, typeof counter === 'function' ? counter : await counter);
    const vendorForm = speaksGoogle(request);
    await runOperation(
      deps,
      contextOf(request),
      {
        operation: 'images',
        endpoint: '/v1beta/models/{model}:predict',
        model,
        call: decoded.call,
        stream: false,
        estimate: { inputTokens: 0, outputTokens: 0, units: decoded.n },
        meter: decoded.meter,
        firstByteTimeoutMs: deps.config.media.upstreamTimeoutMs,
        respond: async (answer: DecodedResponse<ImageResult>) => ({ body: encodePredictions(answer.result!, vendorForm), contentType: 'application/json' }),
      },
      reply,
    );
    return reply;
  });
}
