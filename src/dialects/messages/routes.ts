import type { Dialect } from '../../core/contracts/dialect.ts';
import { route } from '../_kit/route.ts';
import { countMessagesTokens } from './count-tokens.ts';
import { decodeCountTokens, decodeMessages, nativeHeaders } from './decode.ts';
import { messagesErrorDialect } from './encode-error.ts';
import { showsThinking } from './convert-request.ts';
import { messagesOutput, messagesThinkingOutput } from './output.ts';
import { countTokensSchema, messagesSchema } from './schemas.ts';

/**
 * The native messages format (contract §3): a provider of the messages family gets the body
 * untouched; any other provider that has chat serves it through its chat codec, the answer
 * written by `messagesOutput`. The key comes as `x-api-key` (or `Authorization: Bearer`).
 */
export const messagesDialect: Dialect = {
  name: 'messages',
  errors: messagesErrorDialect,
  keys: ['x-api-key', 'bearer'],
  routes: [
    route(messagesSchema, {
      path: '/v1/messages',
      operation: 'messages',
      model: ({ body }) => body.model,
      decode: ({ body, headers, bodyBytes }, ctx) => ({ ...decodeMessages(body, nativeHeaders(headers), bodyBytes, ctx.model), output: showsThinking(body) ? messagesThinkingOutput : messagesOutput }),
    }),
    route(countTokensSchema, {
      path: '/v1/messages/count_tokens',
      operation: 'countTokens',
      model: ({ body }) => body.model,
      decode: ({ body, headers }) => ({ model: body.model, call: decodeCountTokens(body, nativeHeaders(headers)), stream: false, estimate: { inputTokens: 0, outputTokens: 0 } }),
      // no native provider: a local count (o200k), free like the vendor's but counted against the key's requests per minute
      countLocally: { measure: countMessagesTokens, answer: (tokens) => ({ input_tokens: tokens }) },
    }),
  ],
};
