// What every POST endpoint of the simulator looks like: pure functions from the parsed body (and
// the scenario plan) to a reply; the server does all I/O, delays and scenario side effects.
import { randomUUID } from 'node:crypto';
import type { SimulatedError } from './errors.ts';
import type { ScenarioPlan } from './scenarios.ts';
import type { StreamEvent } from './stream.ts';

export interface ReplyContext {
  plan: ScenarioPlan;
  /** Unix seconds for `created`. */
  created: number;
  /** How many content chunks a streamed text is split into. */
  streamChunks: number;
}

export type EndpointReply =
  | { kind: 'json'; body: unknown }
  | { kind: 'stream'; events: StreamEvent[] }
  | { kind: 'error'; error: SimulatedError };

export interface PostEndpoint {
  /** The text scanned for `[[sim:…]]` directives (see scenarios.ts). */
  directiveText(body: unknown): string;
  reply(body: unknown, context: ReplyContext): EndpointReply;
}

export const SYSTEM_FINGERPRINT = 'fp_sim0000001';

/** `<prefix><29 random chars>`, shaped like OpenAI's ids (`chatcmpl-…`, `cmpl-…`). */
export function newResponseId(prefix: string): string {
  return prefix + randomUUID().replaceAll('-', '').slice(0, 29);
}

/** Reads an optional positive integer field; a string result is the error message. */
export function optionalPositiveInt(value: unknown, name: string, max = Number.MAX_SAFE_INTEGER): number | undefined | string {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    return `Invalid '${name}': expected an integer between 1 and ${max}, but got ${JSON.stringify(value)} instead.`;
  }
  return value;
}

/** `stop`: string | string[] | null (at most 4), as a list. A string result is the error message. */
export function readStopSequences(value: unknown): string[] | string {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length <= 4 && value.every((item) => typeof item === 'string')) return value as string[];
  return "Invalid 'stop': expected a string or an array of at most 4 strings.";
}
