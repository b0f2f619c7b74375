import { GatewayError, upstreamUnavailable, type ErrorType } from '../../core/errors.ts';
import type { UpstreamFailure } from '../../core/contracts/vendor-codec.ts';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** What a family read out of its error envelope. */
export interface UpstreamErrorDetail {
  message: string;
  param: string | null;
  code: string | null;
}

export function retryAfterSeconds(headers: ResponseHeaders): number | undefined {
  const raw = headers['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * Classifies an upstream error answer by its HTTP status, the same way for every family. Errors
 * about the request itself reach the client with the vendor's message; errors about the gateway's
 * own upstream credentials or the vendor's health are retried elsewhere and, in the end, reported
 * without upstream detail.
 */
export function classifyUpstreamError(status: number, detail: UpstreamErrorDetail, headers: ResponseHeaders): UpstreamFailure {
  const { message, param, code } = detail;
  if (status === 400 || status === 413 || status === 422) {
    // the specification's error table has no other type for a refused request (the gateway's own 413 uses it too)
    const type: ErrorType = 'invalid_request_error';
    return { retryable: false, error: new GatewayError({ status: status === 422 ? 400 : status, type, message, param, code: code ?? (status === 413 ? 'request_too_large' : null) }) };
  }
  if (status === 429) {
    const retryAfter = retryAfterSeconds(headers) ?? 1;
    return {
      retryable: true,
      error: new GatewayError({ status: 429, type: 'rate_limit_exceeded', message: 'The upstream provider is rate limiting; retry later.', code: 'upstream_rate_limited', retryAfter }),
    };
  }
  if (status === 404) {
    return { retryable: true, error: upstreamUnavailable('The upstream provider does not serve this model right now.', 502, 'upstream_model_unavailable') };
  }
  if (status === 401 || status === 403) {
    return { retryable: true, error: upstreamUnavailable('The upstream provider refused the gateway\'s credentials; the operator has been notified in the logs.', 502, 'upstream_auth_failed') };
  }
  if (status === 529) {
    return { retryable: true, error: upstreamUnavailable('The upstream provider is overloaded. Retry later.', 503, 'upstream_overloaded') };
  }
  // anything else (5xx, 402 billing trouble, 408, 409…) is the provider's problem: try another
  return { retryable: true, error: upstreamUnavailable(`The upstream provider failed (HTTP ${status}). Retry later.`) };
}
