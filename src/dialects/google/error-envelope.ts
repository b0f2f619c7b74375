import { googleErrorBody } from '../../core/google-error-body.ts';
import type { ErrorDialect } from '../../core/contracts/error-dialect.ts';

/** a Google verb under `/v1` (`/v1/models/{model}:generateContent`): OpenAI's wire has no `:` verbs there */
const V1_VERB = /^\/v1\/models\/[^?]*:[A-Za-z]+(?:\?|$)/;

/** `/v1beta/...` and Google's `/v1/models/{model}:verb` answer errors in the Google envelope `{error: {code, message, status}}` (contract §3). */
export const googleErrorDialect: ErrorDialect = {
  name: 'google',
  matches: (path) => path.startsWith('/v1beta/') || path === '/v1beta' || V1_VERB.test(path),
  render: googleErrorBody,
};
