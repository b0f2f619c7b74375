import type { GatewayError } from './errors.ts';

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

/**
 * An error in Google's envelope `{error: {code, message, status, details}}`: what the Google
 * dialect answers, and what the Gemini family's pass-through writes into a failed stream.
 */
export function googleErrorBody(error: GatewayError): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.status,
      message: error.message,
      status: STATUS_NAMES[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: (error.code ?? error.type).toUpperCase(), domain: 'modelgate' }],
    },
  };
}
