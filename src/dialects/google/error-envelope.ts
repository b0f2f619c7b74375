import type { GatewayError } from '../../core/errors.ts';
import type { ErrorDialect } from '../../core/contracts/error-dialect.ts';

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'FAILED_PRECONDITION',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** a Google verb under `/v1` (`/v1/models/{model}:generateContent`): OpenAI's wire has no `:` verbs there */
const V1_VERB = /^\/v1\/models\/[^?]*:[A-Za-z]+(?:\?|$)/;

/** `/v1beta/...` and Google's `/v1/models/{model}:verb` answer errors in the Google envelope `{error: {code, message, status}}` (contract §3). */
export const googleErrorDialect: ErrorDialect = {
  name: 'google',
  matches: (path) => path.startsWith('/v1beta/') || path === '/v1beta' || V1_VERB.test(path),
  render: (error: GatewayError) => ({
    error: {
      code: error.status,
      message: error.message,
      status: STATUS_NAMES[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: (error.code ?? error.type).toUpperCase(), domain: 'modelgate' }],
    },
  }),
};
