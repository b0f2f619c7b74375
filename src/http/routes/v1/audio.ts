import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../../core/errors.ts';
import { decodeSpeech, decodeTranscription } from '../../../dialects/openai/decode-audio.ts';
import { speechSchema } from '../../../dialects/openai/media-schemas.ts';
import type { MediaRouteDeps } from '../deps.ts';
import { measureDuration } from '../../../media/audio-duration.ts';
import { readMultipart } from '../../../media/uploads.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import { modelParam } from '../../../core/model-param.ts';
import { contextOf } from '../../request-context.ts';

/** Bytes per second assumed only to bound the hold for audio the library could not measure (8 kb/s). */
const MIN_BYTES_PER_SECOND = 1000;

export function registerAudioRoutes(fastify: FastifyInstance, deps: MediaRouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const media = deps.config.media;

  app.post('/v1/audio/transcriptions', async (request, reply) => {
    if (!request.isMultipart()) throw invalidRequest('Send the audio as multipart/form-data with the fields file and model.', 'file');
    const form = await readMultipart(request, reply, media);
    try {
      const model = modelParam(form.field('model'));
      checkModelAllowed(request.principal!, model);
      const file = form.files.find((f) => f.field === 'file');
      const measured = file ? await measureDuration(file.path) : null;
      const call = decodeTranscription(form, deps.catalogue.get(model), measured);
      const bound = measured ?? Math.ceil(call.file.size / MIN_BYTES_PER_SECOND);
      await runOperation(
        deps,
        contextOf(request),
        {
          operation: 'transcriptions',
          endpoint: '/v1/audio/transcriptions',
          model,
          call,
          stream: false,
          estimate: { inputTokens: 0, outputTokens: 0, units: bound },
          meter: { unit: 'seconds' },
          firstByteTimeoutMs: media.upstreamTimeoutMs,
        },
        reply,
      );
      return reply;
    } finally {
      await form.cleanup();
    }
  });

  app.post('/v1/audio/speech', { schema: { body: speechSchema } }, async (request, reply) => {
    const body = request.body;
    const model = body.model;
    checkModelAllowed(request.principal!, model);
    const call = decodeSpeech(body, deps.catalogue.get(model));
    await runOperation(
      deps,
      contextOf(request),
      {
        operation: 'speech',
        endpoint: '/v1/audio/speech',
        model,
        call,
        stream: false,
        estimate: { inputTokens: 0, outputTokens: 0, units: call.characters },
        meter: { unit: 'characters' },
        firstByteTimeoutMs: media.upstreamTimeoutMs,
      },
      reply,
    );
    return reply;
  });
}
