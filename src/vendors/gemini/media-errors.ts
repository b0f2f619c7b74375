// The Google error envelope → gateway errors for the media codecs (predict, video): as errors.ts
// for chat, plus the content-policy rule (a blocked image prompt is a 400 the client must see).
import { GatewayError, invalidRequest, upstreamUnavailable } from '../../core/errors.ts';
import type { UpstreamFailure } from '../../core/contracts/vendor-codec.ts';

/** `{error: {code, message, status}}` (also wrapped in an array by some endpoints). */
export function readGoogleError(body: Uint8Array): { message: string; status: string } {
  try {
    let parsed = JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
    if (Array.isArray(parsed)) parsed = parsed[0];
    const error = (parsed as { error?: { message?: unknown; status?: unknown } }).error;
    return { message: typeof error?.message === 'string' ? error.message : 'upstream error', status: typeof error?.status === 'string' ? error.status : '' };
  } catch {
    return { message: 'upstream error', status: '' };
  }
}

const POLICY = /safety|blocked|sensitive|responsible ai|prohibited|policy/i;
const KEY_TROUBLE = /api key|api_key/i;

export function mapGoogleError(status: number, body: Uint8Array, headers: Record<string, string | string[] | undefined>): UpstreamFailure {
  const { message } = readGoogleError(body);
  if (status === 400 && KEY_TROUBLE.test(message)) {
    // the Gemini API answers a bad key with 400: it is the gateway's credential, not the client's request
    return { retryable: true, error: upstreamUnavailable("The upstream provider refused the gateway's credentials; the operator has been notified in the logs.", 502, 'upstream_auth_failed') };
  }
  if (status === 400 && POLICY.test(message)) {
    return { retryable: false, error: invalidRequest(`The prompt was rejected by the safety system: ${message}`, 'prompt', 'content_policy_violation') };
  }
  if (status === 400 || status === 413) return { retryable: false, error: invalidRequest(message) };
  if (status === 429) {
    const raw = headers['retry-after'];
    const retryAfter = Number(Array.isArray(raw) ? raw[0] : raw) || 1;
    return {
      retryable: true,
      error: new GatewayError({ status: 429, type: 'rate_limit_exceeded', message: 'The upstream provider is rate limiting; retry later.', code: 'upstream_rate_limited', retryAfter }),
    };
  }
  if (status === 401 || status === 403) {
    return { retryable: true, error: upstreamUnavailable("The upstream provider refused the gateway's credentials; the operator has been notified in the logs.", 502, 'upstream_auth_failed') };
  }
  if (status === 404) return { retryable: true, error: upstreamUnavailable('The upstream provider does not serve this model right now.', 502, 'upstream_model_unavailable') };
  return { retryable: true, error: upstreamUnavailable(`The upstream provider failed (HTTP ${status}). Retry later.`) };
}
