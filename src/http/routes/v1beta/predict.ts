import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest, modelNotFound, notFound } from '../../../core/errors.ts';
import type { ImageResult } from '../../../core/ir/media.ts';
import { decodePredict } from '../../../dialects/google/decode-predict.ts';
import { encodePredictions } from '../../../dialects/google/encode-predict.ts';
import { predictSchema } from '../../../dialects/google/predict-schema.ts';
import type { Gateway } from '../../../gateway.ts';
import type { DecodedResponse } from '../../../core/contracts/vendor-codec.ts';
import { counterFor } from '../../../pipeline/off-loop-counter.ts';
import { bodyBytesOf } from '../../../core/tokens/prompt-estimate.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { bearerToken, checkModelAllowed } from '../../authenticate.ts';
import { modelParam } from '../../model-param.ts';
import { contextOf } from '../../request-context.ts';

/** The key of a `/v1beta` request: `Authorization: Bearer`, or Google's `x-goog-api-key` (or `?key=`). */
export function googleKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-goog-api-key'];
  if (typeof header === 'string' && header) return header;
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  const key = (request.query as { key?: unknown } | undefined)?.key;
  return typeof key === 'string' && key ? key : undefined;
}

/** Whether the client authenticated the way Google's own library does: it then gets the vendor's field forms. */
const speaksGoogle = (request: FastifyRequest) => !bearerToken(request);

/** `POST /v1beta/models/{model}:predict` (native image prediction, contract §3). */
export function registerPredictRoutes(app: FastifyInstance, gateway: Gateway): void {
  app.post('/v1beta/models/*', { schema: { body: predictSchema } }, async (request, reply) => {
    const target = (request.params as Record<string, string>)['*'] ?? '';
    const colon = target.lastIndexOf(':');
    const model = colon > 0 ? target.slice(0, colon) : target;
    const method = colon > 0 ? target.slice(colon + 1) : '';
    if (method !== 'predict') throw notFound(`There is no POST /v1beta/models/${target}; this gateway serves {model}:predict here.`, null, 'unknown_path');
    modelParam(model);
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object with instances and parameters.');
    checkModelAllowed(request.principal!, model);
    if (!gateway.router.serves(model)) throw modelNotFound(model);
    const catalogued = gateway.catalogue.get(model);
    const counter = counterFor((count) => decodePredict(body as Record<string, unknown>, catalogued, count), bodyBytesOf(request.headers));
    const decoded = decodePredict(body as Record<string, unknown>, catalogued, typeof counter === 'function' ? counter : await counter);
    const vendorForm = speaksGoogle(request);
    await runOperation(
      gateway,
      contextOf(request),
      {
        operation: 'images',
        endpoint: '/v1beta/models/{model}:predict',
        model,
        call: decoded.call,
        stream: false,
        estimate: { inputTokens: 0, outputTokens: 0, units: decoded.n },
        meter: decoded.meter,
        firstByteTimeoutMs: gateway.config.media.upstreamTimeoutMs,
        respond: async (answer: DecodedResponse<ImageResult>) => ({ body: encodePredictions(answer.result!, vendorForm), contentType: 'application/json' }),
      },
      reply,
    );
    return reply;
  });
}
