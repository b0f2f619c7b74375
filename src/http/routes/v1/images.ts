import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../../core/errors.ts';
import type { ImageEditCall, ImageResult } from '../../../core/ir/media.ts';
import { decodeImageEdit, decodeImageGeneration, type DecodedImages } from '../../../dialects/openai/decode-images.ts';
import { encodeImages } from '../../../dialects/openai/encode-images.ts';
import { imageEditJsonSchema, imageGenerationSchema } from '../../../dialects/openai/media-schemas.ts';
import type { Gateway } from '../../../gateway.ts';
import { readMultipart } from '../../../media/uploads.ts';
import type { DecodedResponse } from '../../../core/contracts/vendor-codec.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import { modelParam } from '../../model-param.ts';
import { contextOf } from '../../request-context.ts';

export function registerImageRoutes(app: FastifyInstance, gateway: Gateway): void {
  const respondWith = (format: 'url' | 'b64_json', accountId: string) => async (decoded: DecodedResponse<ImageResult>) => ({
    body: await encodeImages(decoded.result!, format, gateway.media, accountId),
    contentType: 'application/json',
  });

  app.post('/v1/images/generations', { schema: { body: imageGenerationSchema } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const model = body.model as string;
    checkModelAllowed(request.principal!, model);
    const decoded = decodeImageGeneration(body, gateway.catalogue.get(model));
    await runOperation(
      gateway,
      contextOf(request),
      {
        operation: 'images',
        endpoint: '/v1/images/generations',
        model,
        call: decoded.call,
        stream: false,
        estimate: { inputTokens: 0, outputTokens: 0, units: decoded.n },
        meter: decoded.meter,
        firstByteTimeoutMs: gateway.config.media.upstreamTimeoutMs,
        respond: respondWith(decoded.responseFormat, request.principal!.accountId),
      },
      reply,
    );
    return reply;
  });

  for (const kind of ['edits', 'variations'] as const) {
    app.post(`/v1/images/${kind}`, { schema: { body: { content: { 'application/json': { schema: imageEditJsonSchema } } } } }, async (request, reply) => editOrVariation(request, reply, kind));
  }

  async function editOrVariation(request: FastifyRequest, reply: FastifyReply, kind: 'edits' | 'variations') {
    const media = gateway.config.media;
    const form = request.isMultipart() ? await readMultipart(request, reply, media) : undefined;
    try {
      const json = request.body as Record<string, unknown> | undefined;
      if (!form && (typeof json !== 'object' || json === null)) throw invalidRequest('Send a JSON body (image as Base64) or a multipart form.');
      const model = modelParam(form ? form.field('model') : json?.model);
      checkModelAllowed(request.principal!, model);
      const decoded: DecodedImages<ImageEditCall> = decodeImageEdit(form ? { form } : { json: json! }, gateway.catalogue.get(model), kind);
      await runOperation(
        gateway,
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
