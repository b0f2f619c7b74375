import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { decodeChat } from '../../../dialects/openai/decode-chat.ts';
import { decodeCompletions } from '../../../dialects/openai/decode-completions.ts';
import { decodeEmbeddings } from '../../../dialects/openai/decode-embeddings.ts';
import { chatCompletionSchema, completionSchema, embeddingSchema } from '../../../dialects/openai/schemas.ts';
import type { TextRouteDeps } from '../deps.ts';
import { offLoopCounter } from '../../../pipeline/off-loop-counter.ts';
import { bodyBytesOf } from '../../../core/tokens/prompt-estimate.ts';
import { chatThrough } from '../../../pipeline/chat-codec.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { checkModelAllowed } from '../../authenticate.ts';
import { contextOf } from '../../request-context.ts';

/** The OpenAI-compatible text endpoints: chat, legacy completions, embeddings. */
export function registerTextRoutes(fastify: FastifyInstance, deps: TextRouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/v1/chat/completions', { schema: { body: chatCompletionSchema } }, async (request, reply) => {
    const body = request.body;
    const { output, ...decoded } = decodeChat(body, deps.config.defaultMaxOutputTokens, deps.catalogue.get(body.model), Number(request.headers['content-length']));
    checkModelAllowed(request.principal!, decoded.model);
    await runOperation(deps, contextOf(request), { operation: 'chat', endpoint: '/v1/chat/completions', bridge: chatThrough(output), ...decoded }, reply);
    return reply;
  });

  app.post('/v1/completions', { schema: { body: completionSchema } }, async (request, reply) => {
    const decoded = decodeCompletions(request.body, bodyBytesOf(request.headers));
    checkModelAllowed(request.principal!, decoded.model);
    await runOperation(deps, contextOf(request), { operation: 'completions', endpoint: '/v1/completions', ...decoded }, reply);
    return reply;
  });

  app.post('/v1/embeddings', { schema: { body: embeddingSchema } }, async (request, reply) => {
    const body = request.body;
    checkModelAllowed(request.principal!, body.model);
    const model = deps.catalogue.get(body.model);
    // a large request's inputs are counted off the event loop first
    const counter = offLoopCounter.counterFor((count) => decodeEmbeddings(body, model, count, offLoopCounter), bodyBytesOf(request.headers));
    const decoded = decodeEmbeddings(body, model, typeof counter === 'function' ? counter : await counter, offLoopCounter);
    await runOperation(deps, contextOf(request), { operation: 'embeddings', endpoint: '/v1/embeddings', ...decoded }, reply);
    return reply;
  });
}
