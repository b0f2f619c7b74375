import { googleErrorBody } from '../../core/google-error-body.ts';
import type { ErrorDialect } from '../../core/contracts/error-dialect.ts';

/** a Google verb under `/v1` (`/v1/models/{model}:generateContent`): OpenAI's wire has no `:` verbs there */
const V1_VERB = /^\/v1\/models\/[^?]*:[A-Za-z]+(?:\?|$)/;

/** `GET /v1/models[/{model}]`, which both wires share: Google's for a key sent Google's way */
const V1_MODELS = /^\/v1\/models(?:[/?]|$)/;
const QUERY_KEY = /[?&]key=/;

/**
 * `/v1beta/...`, Google's `/v1/models/{model}:verb`, and `/v1/models` asked with a key in
 * `x-goog-api-key` or `?key=` answer errors in the Google envelope `{error: {code, message, status}}` (contract §3).
 */
export const googleErrorDialect: ErrorDialect = {
  name: 'google',
  matches: (path, headers) =>
    path.startsWith('/v1beta/') || path === '/v1beta' || V1_VERB.test(path) || (V1_MODELS.test(path) && (headers['x-goog-api-key'] !== undefined || QUERY_KEY.test(path))),
  render: googleErrorBody,
};
