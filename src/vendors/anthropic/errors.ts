import { GatewayError, upstreamUnavailable } from '../../core/errors.ts';
import type { UpstreamFailure } from '../../core/contracts/vendor-codec.ts';
import { asObject, asString, parseJsonBytes, type JsonObject } from '../_kit/read.ts';
import { classifyUpstreamError, type ResponseHeaders } from '../_kit/upstream-failure.ts';

/**
 * Anthropic error envelope `{"type":"error","error":{"type","message"}}` (protocols.md §3.7).
 * Statuses are classified like every family's; 529 `overloaded_error` is retried elsewhere and,
 * in the end, answered as 503.
 */
export function mapAnthropicError(status: number, body: Uint8Array, headers: ResponseHeaders): UpstreamFailure {
  const error = asObject(asObject(parseJsonBytes(body))?.error);
  const message = asString(error?.message) ?? 'upstream error';
  return classifyUpstreamError(status, { message, param: null, code: asString(error?.type) ?? null }, headers);
}

/** An `event: error` inside a stream that already answered 200. */
export function inBandError(json: JsonObject): GatewayError {
  const error = asObject(json.error);
  const message = asString(error?.message) ?? 'stream failed';
  return upstreamUnavailable(`The upstream provider failed mid-stream: ${message}`, 502, 'upstream_stream_error');
}
