import type { GatewayError } from '../core/errors.ts';
import { audioAppendLength, readClientEvent } from './frames.ts';
import type { Generations } from './generations.ts';
import type { Admission } from './handshake.ts';
import { detectGeneration } from './translate/detect.ts';
import { clientEvent } from './translate/events.ts';
import { isObject, type Json } from './translate/shapes.ts';

/** What becomes of one client frame. */
export type ClientVerdict =
  /** forwarded to the upstream */
  | { to: 'upstream'; data: string | Buffer; binary: boolean }
  /** refused and not forwarded: the client hears why, in order with the relayed events */
  | { to: 'client'; error: GatewayError; eventId: string | null }
  /** refused with nothing held for the session any more: it ends (insufficient_quota) */
  | { to: 'end'; error: GatewayError; eventId: string | null };

/**
 * Reads one client frame of an open session. Audio appends pass without decoding their audio; a
 * conversation item or a `response.create` first tops the session's hold up to what the next
 * response may cost, and is refused when the balance cannot cover it. Throws when the frame is
 * not an event the session can read (the session answers it; it is never forwarded).
 */
export function readClientFrame(frame: Buffer, binary: boolean, admission: Pick<Admission, 'billing' | 'estimator'>, generations: Generations, upstreamModel: string): ClientVerdict {
  if (binary) return { to: 'upstream', data: frame, binary: true };
  // the bulk of a voice session: audio appends pass without decoding their audio
  const audioChars = audioAppendLength(frame);
  if (audioChars !== undefined) {
    admission.estimator.noteAudio(audioChars);
    return { to: 'upstream', data: frame, binary: false };
  }
  const event = readClientEvent(frame);
  const shown = detectGeneration(event);
  generations.show(shown);
  const eventId = typeof event.event_id === 'string' ? event.event_id : null;
  let out: Json = event;
  switch (event.type) {
    case 'response.create': {
      const refusal = admission.billing.onResponseCreate(eventId, isObject(event.response) ? event.response : undefined);
      if (refusal?.endsSession) return { to: 'end', error: refusal.error, eventId };
      if (refusal) return { to: 'client', error: refusal.error, eventId };
      // re-serialised: the upstream reads exactly the event the gateway accounted for
      out = { ...event };
      break;
    }
    case 'conversation.item.create': {
      const refusal = admission.billing.onItemCreate(event.item);
      if (refusal) return { to: 'client', error: refusal, eventId };
      // re-serialised for the same reason: a frame with two "item" keys cannot hide a larger one
      out = { ...event };
      break;
    }
    case 'input_audio_buffer.append':
      if (typeof event.audio === 'string') admission.estimator.noteAudio(event.audio.length);
      break;
    case 'session.update':
      // the session stays on the model it was opened (and is priced) for
      out = isObject(event.session) && event.session.model !== undefined ? { ...event, session: { ...event.session, model: upstreamModel } } : { ...event };
      break;
  }
  if (generations.rewritesClientFrame(shown)) out = clientEvent(out, generations.upstream);
  return { to: 'upstream', data: out === event ? frame : JSON.stringify(out), binary: false };
}
