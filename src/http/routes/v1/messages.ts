import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { modelNotFound } from '../../../core/errors.ts';
import { messagesThroughChat } from '../../../pipeline/messages-bridge.ts';
import { countMessagesTokens } from '../../../dialects/messages/count-tokens.ts';
import { decodeCountTokens, decodeMessages, nativeHeaders } from '../../../dialects/messages/decode.ts';
import { messagesErrorDialect } from '../../../dialects/messages/encode-error.ts';
import { messagesOutput } from '../../../dialects/messages/output.ts';
import { countTokensSchema, messagesSchema } from '../../../dialects/messages/schemas.ts';
import type { MessagesRouteDeps } from '../deps.ts';
import { countPrompt } from '../../../pipeline/off-loop-counter.ts';
import { bodyBytesOf } from '../../../core/tokens/prompt-estimate.ts';
import { runOperation } from '../../../pipeline/run-operation.ts';
import { admitBeforeWork } from '../../admission.ts';
import { authenticateWith, bearerToken, checkModelAllowed } from '../../authenticate.ts';
import { registerErrorDialect } from '../../error-envelope.ts';
import { contextOf } from '../../request-context.ts';

/** The messages format's key header; `Authorization: Bearer` works as well. */
function messagesKey(request: FastifyRequest): string | undefined {
  const key = request.headers['x-api-key'];
  return (typeof key === 'string' && key !== '' ? key : undefined) ?? bearerToken(request);
}

/**
 * The native messages endpoints (contract §3). A provider of the messages family gets the body
 * untouched; any other provider that has chat serves it through the bridge (translated both ways).
 */
export function registerMessagesRoutes(fastify: FastifyInstance, deps: MessagesRouteDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  registerErrorDialect(messagesErrorDialect);
  const throughChat = messagesThroughChat(messagesOutput);
  app.addHook('onRequest', authenticateWith(deps, messagesKey));
  app.addHook('preHandler', admitBeforeWork(deps));

  app.post('/v1/messages', { schema: { body: messagesSchema } }, async (request, reply) => {
    const body = request.body;
    const decoded = decodeMessages(body, nativeHeaders(request), bodyBytesOf(request.headers), deps.catalogue.get(body.model));
    checkModelAllowed(request.principal!, decoded.model);
    await runOperation(deps, contextOf(request), { operation: 'messages', endpoint: '/v1/messages', bridge: throughChat, ...decoded }, reply);
    return reply;
  });

  app.post('/v1/messages/count_tokens', { schema: { body: countTokensSchema } }, async (request, reply) => {
    const body = request.body;
    const model = body.model;
    const headers = nativeHeaders(request);
    checkModelAllowed(request.principal!, model);
    if (deps.router.candidates(model, 'countTokens').length > 0) {
      const call = decodeCountTokens(body, headers);
      await runOperation(deps, contextOf(request), { operation: 'countTokens', endpoint: '/v1/messages/count_tokens', model, call, stream: false, estimate: { inputTokens: 0, outputTokens: 0 } }, reply);
      return reply;
    }
    if (!deps.router.serves(model)) throw modelNotFound(model);
    // no native provider: a local count (o200k), free like the vendor's but counted against the
    // key's requests per minute (admission); a large body is counted off the event loop
    const counted = countPrompt(body, countMessagesTokens, bodyBytesOf(request.headers));
    const inputTokens = typeof counted === 'number' ? counted : await counted;
    reply.header('x-request-id', request.correlationId);
    if (request.admission) reply.headers(request.admission);
    return { input_tokens: inputTokens };
  });
}
