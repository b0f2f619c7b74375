// Google's error envelope (protocols.md §5.7): HTTP status, canonical status name, message.
import type { ScenarioError } from '../_kit/scenarios.ts';

export interface SimulatedError {
  status: number;
  envelope: { error: { code: number; message: string; status: string; details?: unknown[] } };
  headers: Record<string, string>;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const MESSAGES: Record<string, string> = {
  RESOURCE_EXHAUSTED: 'Resource has been exhausted (e.g. check quota) (simulated).',
  UNAVAILABLE: 'The model is overloaded. Please try again later.',
  INTERNAL: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
};

export function googleError(status: number, message: string, details?: unknown[], headers: Record<string, string> = {}): SimulatedError {
  const name = STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
  return { status, envelope: { error: { code: status, message, status: name, ...(details && { details }) } }, headers };
}

export const invalidArgument = (message: string): SimulatedError => googleError(400, message);

export function apiKeyInvalid(): SimulatedError {
  return googleError(400, 'API key not valid. Please pass a valid API key.', [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
  ]);
}

export function scenarioError(spec: ScenarioError): SimulatedError {
  const name = STATUS_NAMES[spec.status] ?? 'INTERNAL';
  const headers: Record<string, string> = {};
  if (spec.retryAfterSeconds !== undefined) headers['retry-after'] = String(spec.retryAfterSeconds);
  return googleError(spec.status, spec.message ?? MESSAGES[name] ?? `Simulated error with status ${spec.status}.`, undefined, headers);
}

/** The in-band error a `stream-error` scenario sends after HTTP 200. */
export const STREAM_ERROR = JSON.stringify(googleError(503, MESSAGES.UNAVAILABLE!).envelope);
