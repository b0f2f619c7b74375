// The messages family's error envelope (protocols.md §3.7) with the status → type table.
import type { ScenarioError } from '../_kit/scenarios.ts';

export interface SimulatedError {
  status: number;
  envelope: { type: 'error'; error: { type: string; message: string }; request_id: string };
  headers: Record<string, string>;
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const MESSAGE_BY_TYPE: Record<string, string> = {
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit (simulated).',
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
  authentication_error: 'invalid x-api-key',
  not_found_error: 'model: not found (simulated)',
};

export function anthropicError(status: number, message: string, type = TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), headers: Record<string, string> = {}): SimulatedError {
  return { status, envelope: { type: 'error', error: { type, message }, request_id: `req_sim${status}` }, headers };
}

export const invalidRequest = (message: string): SimulatedError => anthropicError(400, message);

/** The error a `status` scenario produces, worded the way the vendor words it. */
export function scenarioError(spec: ScenarioError): SimulatedError {
  const type = spec.type ?? TYPE_BY_STATUS[spec.status] ?? (spec.status >= 500 ? 'api_error' : 'invalid_request_error');
  const headers: Record<string, string> = {};
  const retryAfter = spec.retryAfterSeconds ?? (spec.status === 429 ? 1 : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  return anthropicError(spec.status, spec.message ?? MESSAGE_BY_TYPE[type] ?? `Simulated error with status ${spec.status}.`, type, headers);
}

/** The in-band error a `stream-error` scenario sends after HTTP 200. */
export const STREAM_ERROR = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
