// OpenAI error envelope (protocols.md 2.10): all four fields are always present.
import type { ScenarioError } from './scenarios.ts';

export interface OpenAIErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface SimulatedError {
  status: number;
  envelope: OpenAIErrorEnvelope;
  headers: Record<string, string>;
}

export function openAIError(
  status: number,
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
  headers: Record<string, string> = {},
): SimulatedError {
  return { status, envelope: { error: { message, type, param, code } }, headers };
}

export function invalidRequest(message: string, param: string | null, code: string | null = null): SimulatedError {
  return openAIError(400, message, 'invalid_request_error', param, code);
}

export function invalidApiKey(): SimulatedError {
  return openAIError(
    401,
    'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
    'invalid_request_error',
    null,
    'invalid_api_key',
  );
}

/** The error a `status` scenario produces, with type/code/message defaulted the way OpenAI words them. */
export function scenarioError(spec: ScenarioError): SimulatedError {
  const { status } = spec;
  const defaults = defaultsForStatus(status);
  const headers: Record<string, string> = {};
  const retryAfter = spec.retryAfterSeconds ?? (status === 429 ? 1 : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  return openAIError(
    status,
    spec.message ?? defaults.message,
    spec.type ?? defaults.type,
    null,
    spec.code ?? defaults.code,
    headers,
  );
}

function defaultsForStatus(status: number): { type: string; code: string | null; message: string } {
  if (status === 429) {
    return { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded', message: 'Rate limit reached (simulated). Please try again later.' };
  }
  if (status >= 500) {
    return { type: 'server_error', code: null, message: 'The server had an error while processing your request (simulated).' };
  }
  if (status === 401) {
    return { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided (simulated).' };
  }
  if (status === 403) {
    return { type: 'permission_error', code: null, message: 'You are not allowed to perform this request (simulated).' };
  }
  if (status === 404) {
    return { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it (simulated).' };
  }
  return { type: 'invalid_request_error', code: null, message: `Simulated error with status ${status}.` };
}
