import type { Dialect } from '../../core/contracts/dialect.ts';
import { route } from '../_kit/route.ts';
import { decodeChat } from './decode-chat.ts';
import { decodeCompletions } from './decode-completions.ts';
import { decodeEmbeddings } from './decode-embeddings.ts';
import { openaiErrorDialect } from './error-envelope.ts';
import { chatCompletionSchema, completionSchema, embeddingSchema } from './schemas.ts';

/**
 * The OpenAI-compatible wire: chat, legacy completions and embeddings as data. Its other routes
 * (models, moderations and rerank, audio, images, videos, realtime) need I/O of their own and
 * live in src/http/routes/v1/.
 */
export const openaiDialect: Dialect = {
  name: 'openai',
  errors: openaiErrorDialect,
  keys: ['bearer'],
  routes: [
    route(chatCompletionSchema, {
      path: '/v1/chat/completions',
      operation: 'chat',
      model: ({ body }) => body.model,
      // the chat answer's encoder comes with the call: the pipeline composes it with the family's codec
      decode: ({ body, bodyBytes }, ctx) => decodeChat(body, ctx.defaultMaxOutputTokens, ctx.model, bodyBytes),
    }),
    route(completionSchema, {
      path: '/v1/completions',
      operation: 'completions',
      model: ({ body }) => body.model,
      decode: ({ body, bodyBytes }) => decodeCompletions(body, bodyBytes),
    }),
    route(embeddingSchema, {
      path: '/v1/embeddings',
      operation: 'embeddings',
      precheck: 'allowlist',
      countsTexts: true,
      model: ({ body }) => body.model,
      decode: ({ body }, ctx) => decodeEmbeddings(body, ctx.model, ctx.count, ctx.offLoop),
    }),
  ],
};
