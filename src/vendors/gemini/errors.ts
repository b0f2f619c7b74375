import { GatewayError, upstreamUnavailable } from '../../core/errors.ts';
import type { UpstreamFailure } from '../../core/contracts/vendor-codec.ts';
import { asArray, asObject, asString, parseJsonBytes, type JsonObject } from '../_kit/read.ts';
import { classifyUpstreamError, type ResponseHeaders } from '../_kit/upstream-failure.ts';

/**
 * Google error envelope `{"error":{"code","message","status","details"}}` (protocols.md §5.7),
 * sometimes wrapped in an array. An invalid API key is a 400 there: it concerns the gateway's
 * own credentials, so it is treated like a 401 (retried elsewhere, never shown to the client).
 */
export function mapGeminiError(status: number, body: Uint8Array, headers: ResponseHeaders): UpstreamFailure {
  const parsed = parseJsonBytes(body);
  const error = asObject(asObject(Array.isArray(parsed) ? parsed[0] : parsed)?.error);
  const message = asString(error?.message) ?? 'upstream error';
  const keyRefused = asArray(error?.details).some((d) => asObject(d)?.reason === 'API_KEY_INVALID');
  return classifyUpstreamError(keyRefused ? 401 : status, { message, param: null, code: asString(error?.status) ?? null }, headers);
}

/** A `data: {"error": …}` event inside a stream that already answered 200. */
export function inBandError(json: JsonObject): GatewayError {
  const message = asString(asObject(json.error)?.message) ?? 'stream failed';
  return upstreamUnavailable(`The upstream provider failed mid-stream: ${message}`, 502, 'upstream_stream_error');
}
