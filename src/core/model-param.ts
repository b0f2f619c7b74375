import { invalidRequest } from './errors.ts';

/** The longest model id a client may send (the JSON schemas' `model` says the same). */
export const MAX_MODEL_LENGTH = 256;

/**
 * A `model` that arrives outside a JSON schema (a multipart field, a path segment, a query
 * parameter): a string of 1..256 characters, or a 400 naming `model`.
 */
export function modelParam(value: unknown, param = 'model'): string {
  if (typeof value !== 'string' || value === '') throw invalidRequest(`Missing required parameter: '${param}'.`, param);
  if (value.length > MAX_MODEL_LENGTH) throw invalidRequest(`Invalid value for '${param}': at most ${MAX_MODEL_LENGTH} characters are allowed.`, param);
  return value;
}
