import { GatewayError, invalidRequest, upstreamUnavailable } from '../../core/errors.ts';
import type { UpstreamFailure } from '../../core/contracts/vendor-codec.ts';

/** Cohere errors: `{"message": "…"}`; 498 is an invalid token, 499 a client that left. */
export function mapCohereError(status: number, body: Uint8Array, headers: Record<string, string | string[] | undefined>): UpstreamFailure {
  let message = 'upstream error';
  try {
    const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // not JSON
  }
  if (status === 400 || status === 422) return { retryable: false, error: invalidRequest(message) };
  if (status === 429) {
    const raw = headers['retry-after'];
    const retryAfter = Number(Array.isArray(raw) ? raw[0] : raw) || 1;
    return { retryable: true, error: new GatewayError({ status: 429, type: 'rate_limit_exceeded', message: 'The upstream provider is rate limiting; retry later.', code: 'upstream_rate_limited', retryAfter }) };
  }
  if (status === 401 || status === 403 || status === 498) {
    return { retryable: true, error: upstreamUnavailable("The upstream provider refused the gateway's credentials; the operator has been notified in the logs.", 502, 'upstream_auth_failed') };
  }
  if (status === 404) return { retryable: true, error: upstreamUnavailable('The upstream provider does not serve this model right now.', 502, 'upstream_model_unavailable') };
  return { retryable: true, error: upstreamUnavailable(`The upstream provider failed (HTTP ${status}). Retry later.`) };
}
