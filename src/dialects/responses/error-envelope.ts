import type { ErrorDialect } from '../../core/contracts/error-dialect.ts';

/** Errors on /v1/responses are in the OpenAI envelope `{error: {message, type, param, code}}`, as the official clients read them. */
export const responsesErrorDialect: ErrorDialect = {
  name: 'responses',
  matches: (path) => path === '/v1/responses' || path.startsWith('/v1/responses/') || path.startsWith('/v1/responses?'),
  render: (error) => ({ error: { message: error.message, type: error.type, param: error.param, code: error.code } }),
};
