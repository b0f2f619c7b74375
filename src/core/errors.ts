/**
 * One error type for the whole gateway. Every failure a client can see is a GatewayError
 * with a stable code; each dialect renders it in its own envelope (OpenAI, messages, Google).
 */

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'insufficient_quota'
  | 'not_found'
  | 'rate_limit_exceeded'
  | 'request_too_large'
  | 'server_error'
  | 'upstream_error'
  | 'timeout_error'
  | 'overloaded_error';

export interface GatewayErrorInit {
  status: number;
  type: ErrorType;
  message: string;
  param?: string | null;
  code?: string | null;
  /** seconds, for 429 answers */
  retryAfter?: number;
  headers?: Record<string, string>;
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly code: string | null;
  readonly retryAfter: number | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(init: GatewayErrorInit) {
    super(init.message);
    this.name = 'GatewayError';
    this.status = init.status;
    this.type = init.type;
    this.param = init.param ?? null;
    this.code = init.code ?? null;
    this.retryAfter = init.retryAfter;
    this.headers = init.headers;
  }
}

export const invalidRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new GatewayError({ status: 400, type: 'invalid_request_error', message, param, code });

export const authenticationError = (message: string, code = 'invalid_api_key') =>
  new GatewayError({ status: 401, type: 'authentication_error', message, code });

export const insufficientQuota = (message: string) =>
  new GatewayError({ status: 402, type: 'insufficient_quota', message, code: 'insufficient_quota' });

export const notFound = (message: string, param: string | null = null, code = 'not_found') =>
  new GatewayError({ status: 404, type: 'not_found', message, param, code });

export const rateLimited = (message: string, retryAfter: number, headers?: Record<string, string>) =>
  new GatewayError({ status: 429, type: 'rate_limit_exceeded', message, code: 'rate_limit_exceeded', retryAfter, headers });

export const serverError = (message = 'The gateway failed to process the request. Retry, or contact support with the x-request-id.') =>
  new GatewayError({ status: 500, type: 'server_error', message, code: 'internal_error' });

/** An upstream answered with an error or could not be reached: never charged. */
export const upstreamUnavailable = (message: string, status = 502, code = 'upstream_unavailable') =>
  new GatewayError({ status, type: 'server_error', message, code });

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/** The same answer for "unknown" and "not yours", so a key cannot probe for models it may not use. */
export const modelNotFound = (model: string) =>
  notFound(`The model "${model}" does not exist or you do not have access to it.`, 'model', 'model_not_found');
