import type { Dialect } from '../../core/contracts/dialect.ts';
import { route } from '../_kit/route.ts';
import { storedRefs } from './conversation.ts';
import { decodeResponses } from './decode.ts';
import { responsesErrorDialect } from './error-envelope.ts';
import { responsesSchema } from './schemas.ts';

/**
 * The OpenAI Responses API (contract §4): `POST /v1/responses` decoded to a chat call in the IR
 * and served by every family's chat codec, the answer written as a `response` object or its typed
 * event stream. The stored responses' routes need the store and live in src/http/routes.
 */
export const responsesDialect: Dialect = {
  name: 'responses',
  errors: responsesErrorDialect,
  keys: ['bearer'],
  routes: [
    route(responsesSchema, {
      path: '/v1/responses',
      operation: 'chat',
      model: ({ body }) => body.model,
      storedRefs: ({ body }) => storedRefs(body),
      decode: ({ body, bodyBytes }, ctx) => decodeResponses(body, ctx.defaultMaxOutputTokens, ctx.model, bodyBytes, ctx.stored),
    }),
  ],
};
