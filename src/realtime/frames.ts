// Frame-level helpers of the realtime relay: reading an event's type cheaply, the gateway's own
// `error` events, and close codes that may be sent on the wire.
import { randomBytes } from 'node:crypto';
import { GatewayError, invalidRequest, serverError } from '../core/errors.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../core/json-depth.ts';
import { isObject, type Json } from './translate/shapes.ts';

const TYPE_PREFIX = '{"type":"';

/**
 * The `type` of a frame whose JSON starts with it, as every SDK and vendor writes them, without
 * parsing the (possibly megabyte-sized) rest. undefined: parse the frame to know.
 */
export function sniffType(text: string): string | undefined {
  if (!text.startsWith(TYPE_PREFIX)) return undefined;
  const end = text.indexOf('"', TYPE_PREFIX.length);
  if (end < 0 || end - TYPE_PREFIX.length > 100) return undefined;
  const type = text.slice(TYPE_PREFIX.length, end);
  return type.includes('\\') ? undefined : type;
}

const AUDIO_KEY = Buffer.from('"audio":"');
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;

/**
 * The base64 length of an `input_audio_buffer.append` frame, read without decoding its audio: the
 * frame must end with the audio string (`…"audio":"<no quote>"}`), and everything before the audio
 * is parsed as JSON, so the type the upstream will read is the one checked here (a second "type"
 * key cannot hide behind the audio). undefined: not such a frame, parse it.
 */
export function audioAppendLength(frame: Buffer): number | undefined {
  const at = frame.indexOf(AUDIO_KEY);
  if (at < 0 || at > 256) return undefined;
  const start = at + AUDIO_KEY.length;
  const end = frame.indexOf(QUOTE, start);
  if (end !== frame.length - 2 || frame[frame.length - 1] !== CLOSE_BRACE) return undefined;
  const head = parseEvent(`${frame.toString('utf8', 0, at)}"audio":""}`);
  return head?.type === 'input_audio_buffer.append' ? end - start : undefined;
}

/** A text frame as a JSON object with a string type; undefined when it is not one. */
export function parseEvent(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) && typeof value.type === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Client events the gateway reads, and what each of their fields it reads must be. */
const FIELD_KINDS: Readonly<Record<string, ReadonlyArray<readonly [field: string, kind: 'object' | 'string']>>> = {
  'response.create': [['response', 'object']],
  'conversation.item.create': [['item', 'object']],
  'session.update': [['session', 'object']],
  'input_audio_buffer.append': [['audio', 'string']],
};

/**
 * A client text frame as an event the session can read, or a GatewayError thrown (answered with
 * an `error` event, never forwarded): not JSON, not an object with a string type, nested deeper
 * than HTTP bodies may be, or a field the gateway reads of the wrong type.
 */
export function readClientEvent(frame: Buffer): Json {
  if (jsonDepthExceeds(frame, MAX_JSON_DEPTH)) throw invalidRequest(`The event is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are allowed.`);
  const event = parseEvent(frame.toString('utf8'));
  if (!event) throw invalidRequest('The event is not a JSON object with a string "type".', 'type');
  if (event.event_id !== undefined && typeof event.event_id !== 'string') throw invalidRequest('event_id must be a string.', 'event_id');
  for (const [field, kind] of FIELD_KINDS[event.type as string] ?? []) {
    const value = event[field];
    if (value !== undefined && (kind === 'object' ? !isObject(value) : typeof value !== kind)) {
      throw invalidRequest(`${field} of ${String(event.type)} must be ${kind === 'object' ? 'an object' : 'a string'}.`, field);
    }
  }
  return event;
}

/** The `error` event answering a client frame that failed: a refusal as it is; anything else is a bug, answered without its details. */
export function frameFailure(error: unknown): { event: string; bug: boolean } {
  const bug = !(error instanceof GatewayError);
  return { event: errorEvent(bug ? serverError('The gateway failed to process this event.') : (error as GatewayError)), bug };
}

export const newEventId = (): string => `event_gw_${randomBytes(9).toString('base64url')}`;

/** The `error` server event (same shape in both generations) carrying a gateway error. */
export function errorEvent(error: GatewayError, clientEventId: string | null = null): string {
  return JSON.stringify({
    type: 'error',
    event_id: newEventId(),
    error: { type: error.type, code: error.code, message: error.message, param: error.param, event_id: clientEventId },
  });
}

/** Close codes of the gateway (README, Realtime). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
} as const;

/** Codes an endpoint may put in a close frame (RFC 6455 §7.4; 1005/1006/1015 are never sent). */
export function isSendableCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** Close reasons are limited to 123 bytes of UTF-8. */
export function closeReason(reason: string): string {
  const bytes = Buffer.from(reason, 'utf8');
  if (bytes.length <= 123) return reason;
  return bytes.subarray(0, 123).toString('utf8').replace(/\uFFFD$/, '');
}

/** What the client hears when the upstream closed: its code when it may be sent on, else a meaningful one. */
export function clientCloseFor(code: number, reason: string, error: Error | undefined): { code: number; reason: string } {
  if ((error as { code?: string } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return { code: CLOSE.tooBig, reason: 'upstream message too large' };
  if (code === 1005) return { code: CLOSE.normal, reason: reason || 'upstream closed the session' };
  if (isSendableCode(code)) return { code, reason: reason || 'upstream closed the session' };
  return { code: CLOSE.internal, reason: 'upstream connection lost' };
}
