import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { invalidRequest } from '../../../core/errors.ts';
import type { ImageEditCall, ImageResult } from '../../../core/ir/media.ts';
import { decodeImageEdit, decodeImageGeneration, type DecodedImages } from '../../../dialects/openai/decode-images.ts';
import { encodeImages } from '../../../dialects/openai/encode-images.ts';
import { imageEditJsonSchema, imageGenerationSchema } from '../../../dialects/openai/media-schemas.ts';
import type { ImageRouteDeps } from '../deps.ts';
import { readMultipart } from '../../../media/uploads.ts';
import type { DecodedResponse } from '../../../core/contracts/vendor-codec.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import { modelParam } from '../../../core/model-param.ts';
import { contextOf } from '../../request-context.ts';

/**
 * What an edit or a variation's body is: the JSON its schema checked (the schema applies to
 * application/json only), undefined for a multipart form (its parts are read by the route) or a
 * string for text/plain, refused below.
 */
type EditRoute = { Body: Static<typeof imageEditJsonSchema> | string | undefined };

export function registerImageRoutes(fastify: FastifyInstance, deps: ImageRouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const respondWith = (format: 'url' | 'b64_json', accountId: string) => async (decoded: DecodedResponse<ImageResult>) => ({
    body: await encodeImages(decoded.result!, format, deps.media, accountId),
    contentType: 'application/json',
  });

  app.post('/v1/images/generations', { schema: { body: imageGenerationSchema } }, async (request, reply) => {
    const body = request.body;
    const model = body.model;
    checkModelAllowed(request.principal!, model);
    const decoded = decodeImageGeneration(body, deps.catalogue.get(model));
    await runOperation(
      deps,
      contextOf(request),
      {
        operation: 'images',
        endpoint: '/v1/images/generations',
        model,
        call: decoded.call,
        stream: false,
        estimate: { inputTokens: 0, outputTokens: 0, units: decoded.n },
        meter: decoded.meter,
        firstByteTimeoutMs: deps.config.media.upstreamTimeoutMs,
        respond: respondWith(decoded.responseFormat, request.principal!.accountId),
      },
      reply,
    );
    return reply;
  });

  for (const kind of ['edits', 'variations'] as const) {
    app.post<EditRoute>(`/v1/images/${kind}`, { schema: { body: { content: { 'application/json': { schema: imageEditJsonSchema } } } } }, async (request, reply) => editOrVariation(request, reply, kind));
  }

  async function editOrVariation(request: FastifyRequest<EditRoute>, reply: FastifyReply, kind: 'edits' | 'variations') {
    const media = deps.config.media;
    const form = request.isMultipart() ? await readMultipart(request, reply, media) : undefined;
    try {
      const json = typeof request.body === 'object' && request.body !== null ? request.body : undefined;
      const source: Parameters<typeof decodeImageEdit>[0] | undefined = form ? { form } : json && { json };
      if (!source) throw invalidRequest('Send a JSON body (image as Base64) or a multipart form.');
      const model = modelParam('form' in source ? source.form.field('model') : source.json.model);
      checkModelAllowed(request.principal!, model);
      const decoded: DecodedImages<ImageEditCall> = decodeImageEdit(source, deps.catalogue.get(model), kind);
      await runOperation(
        deps,
        contextOf(request),
        {
          operation: kind === 'edits' ? 'imageEdits' : 'imageVariations',
          endpoint: `/v1/images/${kind}`,
          model,
          call: decoded.call,
          stream: false,
          estimate: { inputTokens: 0, outputTokens: 0, units: decoded.n },
          meter: decoded.meter,
          firstByteTimeoutMs: media.upstreamTimeoutMs,
          respond: respondWith(decoded.responseFormat, request.principal!.accountId),
        },
        reply,
      );
      return reply;
    } finally {
      await form?.cleanup();
    }
  }
}
