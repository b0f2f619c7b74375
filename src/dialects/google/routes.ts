import type { Dialect, DialectRoute } from '../../core/contracts/dialect.ts';
import type { ImageResult } from '../../core/ir/media.ts';
import { route } from '../_kit/route.ts';
import { decodePredict } from './decode-predict.ts';
import { encodePredictions } from './encode-predict.ts';
import { googleErrorDialect } from './error-envelope.ts';
import { predictSchema } from './predict-schema.ts';
import { countGeminiTokens } from './count-tokens.ts';
import { decodeGenerate } from './decode-generate.ts';
import { batchEmbedSchema, decodeEmbed, embedContentSchema } from './embed.ts';
import { countTokensSchema, generateSchema, streamQuery } from './generate-schema.ts';

type Json = Record<string, unknown>;

/** The generate, count and embed verbs, the same under `/v1beta` and `/v1` (the Python client calls the one, the JavaScript client 3.x the other). */
function contentRoutes(prefix: '/v1beta' | '/v1'): DialectRoute[] {
  const path = (verb: string) => `${prefix}/models/{model}:${verb}`;
  return [
    route(generateSchema, {
      path: path('generateContent'),
      operation: 'chat',
      precheck: 'allowlist',
      model: ({ pathModel }) => pathModel!,
      decode: ({ body, pathModel, bodyBytes }, ctx) => decodeGenerate(body, pathModel!, false, undefined, bodyBytes, ctx.model, ctx.defaultMaxOutputTokens),
    }),
    route(generateSchema, {
      path: path('streamGenerateContent'),
      query: streamQuery,
      operation: 'chat',
      precheck: 'allowlist',
      model: ({ pathModel }) => pathModel!,
      decode: ({ body, pathModel, bodyBytes, query }, ctx) => decodeGenerate(body, pathModel!, true, query.alt, bodyBytes, ctx.model, ctx.defaultMaxOutputTokens),
    }),
    route(countTokensSchema, {
      path: path('countTokens'),
      operation: 'countTokens',
      precheck: 'served',
      model: ({ pathModel }) => pathModel!,
      decode: ({ body, pathModel }) => ({ model: pathModel!, call: { body, nativeVersion: '', nativeBeta: undefined }, stream: false, estimate: { inputTokens: 0, outputTokens: 0 } }),
      // counted by the gateway (o200k), free: no family's native count reads this wire
      countLocally: { always: true, measure: (body, count) => countGeminiTokens(body as Json, count), answer: (tokens) => ({ totalTokens: tokens }) },
    }),
    route(embedContentSchema, {
      path: path('embedContent'),
      operation: 'embeddings',
      precheck: 'served',
      model: ({ pathModel }) => pathModel!,
      decode: ({ body, pathModel }, ctx) => decodeEmbed([body as Json], pathModel!, ctx.count, true),
    }),
    route(batchEmbedSchema, {
      path: path('batchEmbedContents'),
      operation: 'embeddings',
      precheck: 'served',
      model: ({ pathModel }) => pathModel!,
      decode: ({ body, pathModel }, ctx) => decodeEmbed(body.requests as Json[], pathModel!, ctx.count, false),
    }),
  ];
}

/**
 * Google's wire under `/v1beta` and `/v1` (contract §3, §4): native image prediction, and
 * generateContent (streamed or not), countTokens and the embed verbs through the IR to every family. The key comes as
 * `x-goog-api-key`, `Authorization: Bearer` or `?key=`; a client that authenticated the way
 * Google's own library does (no Bearer) gets the vendor's field forms.
 */
export const googleDialect: Dialect = {
  name: 'google',
  errors: googleErrorDialect,
  keys: ['x-goog-api-key', 'bearer', 'query-key'],
  routes: [
    route(predictSchema, {
      path: '/v1beta/models/{model}:predict',
      operation: 'images',
      precheck: 'served',
      countsTexts: true,
      media: true,
      model: ({ pathModel }) => pathModel!,
      decode: ({ body, pathModel, bearer }, ctx) => {
        const { call, meter, n } = decodePredict(body, ctx.model, ctx.count);
        return { model: pathModel!, call, stream: false, estimate: { inputTokens: 0, outputTokens: 0, units: n }, meter, answer: (result: ImageResult) => encodePredictions(result, !bearer) };
      },
    }),
    ...contentRoutes('/v1beta'),
    ...contentRoutes('/v1'),
  ],
};
