import type { GatewayError } from '../core/errors.ts';
import { parseEvent, sniffType } from './frames.ts';
import type { Admission } from './handshake.ts';
import { DELTA_TYPES, type EventTranslator } from './translate/events.ts';
import { isObject, type Json } from './translate/shapes.ts';

/** bytes of a frame read to find its type without decoding the rest */
const HEAD_BYTES = 64;
/** server events the session reads (billing, model names, estimates); the others pass untouched */
const INSPECTED = new Set(['session.created', 'session.updated', 'response.created', 'response.done', 'error']);

/** What the session does after one text frame from the upstream. */
export interface UpstreamReading {
  /** frames for the client, in order (none when the session no longer forwards) */
  send: Array<string | Buffer>;
  /** the frame was an event the session reads: its billing may have moved */
  read: boolean;
  /** a response to cancel upstream (it started while the session ends, or cannot be covered) */
  cancel: string | null;
  /** the session must end (insufficient_quota) */
  ends: GatewayError | null;
}

const UNREAD = (send: Array<string | Buffer>): UpstreamReading => ({ send, read: false, cancel: null, ends: null });

/**
 * Reads one text frame of the upstream. Deltas and, between same-generation ends, every event the
 * session does not read pass as bytes (a delta renamed if need be); the others are parsed: their
 * model names rewritten, their responses billed (`response.created` takes a hold, `response.done`
 * settles it), and translated for the client when the two ends' generations differ. `forward`:
 * the client is still sent frames; `open`: the session is not ending.
 */
export function readUpstreamFrame(
  frame: Buffer,
  open: boolean,
  forward: boolean,
  admission: Pick<Admission, 'billing' | 'estimator'>,
  translator: EventTranslator | null,
  publicModel: string,
): UpstreamReading {
  const type = sniffType(frame.toString('latin1', 0, HEAD_BYTES));
  if (type !== undefined && (DELTA_TYPES.has(type) || (translator === null && !INSPECTED.has(type)))) {
    if (!forward) return UNREAD([]);
    const renamed = translator?.renameDelta(type) ?? type;
    return UNREAD([renamed === type ? frame : Buffer.concat([Buffer.from(`{"type":"${renamed}"`), frame.subarray(10 + type.length)])]);
  }
  const event = parseEvent(frame.toString('utf8'));
  if (!event) return UNREAD(forward ? [frame] : []);
  const billing = admission.billing;
  let out: Json = event;
  let cancel: string | null = null;
  let ends: GatewayError | null = null;
  switch (event.type) {
    case 'session.created':
    case 'session.updated':
      if (isObject(event.session)) {
        admission.estimator.noteSession(event.session);
        if (event.session.model !== undefined) out = { ...event, session: { ...event.session, model: publicModel } };
      }
      break;
    case 'response.created': {
      const id = isObject(event.response) && typeof event.response.id === 'string' ? event.response.id : undefined;
      if (id === undefined) break;
      const refusal = billing.onResponseCreated(id);
      if (!open || refusal) cancel = id;
      ends = refusal;
      break;
    }
    case 'response.done':
      if (isObject(event.response)) ends = billing.onResponseDone(event.response);
      break;
    case 'error':
      billing.onUpstreamError(event);
      break;
  }
  const send: Array<string | Buffer> = [];
  if (forward) {
    if (translator) for (const translated of translator.toClient(out)) send.push(JSON.stringify(translated));
    else send.push(out === event ? frame : JSON.stringify(out));
  }
  return { send, read: true, cancel, ends };
}
