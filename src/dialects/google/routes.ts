import type { Dialect } from '../../core/contracts/dialect.ts';
import type { ImageResult } from '../../core/ir/media.ts';
import { route } from '../_kit/route.ts';
import { decodePredict } from './decode-predict.ts';
import { encodePredictions } from './encode-predict.ts';
import { googleErrorDialect } from './error-envelope.ts';
import { predictSchema } from './predict-schema.ts';

/**
 * Google's wire under `/v1beta` (contract §3): native image prediction. The key comes as
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
  ],
};
