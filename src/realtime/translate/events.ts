// Event-level translation between the two realtime interface generations (protocols.md §2.9),
// used only when the client and the upstream speak different ones. Client events go one way,
// server events the other; the few events that exist on one side only are synthesised or dropped.
import type { RealtimeGeneration } from '../../core/contracts/realtime-codec.ts';
import { isObject, itemToBeta, itemToGa, partToBeta, responseToBeta, responseToGa, sessionToBeta, sessionToGa, type Json } from './shapes.ts';

/** server event type renames, GA → beta (the reverse map is derived) */
const GA_TO_BETA_TYPES: Record<string, string> = {
  'response.output_text.delta': 'response.text.delta',
  'response.output_text.done': 'response.text.done',
  'response.output_audio.delta': 'response.audio.delta',
  'response.output_audio.done': 'response.audio.done',
  'response.output_audio_transcript.delta': 'response.audio_transcript.delta',
  'response.output_audio_transcript.done': 'response.audio_transcript.done',
  'conversation.item.added': 'conversation.item.created',
};
const BETA_TO_GA_TYPES: Record<string, string> = Object.fromEntries(Object.entries(GA_TO_BETA_TYPES).map(([ga, beta]) => [beta, ga]));

/** GA server events a beta client has no name for (WebRTC buffer signals, item completion) */
const GA_ONLY_SERVER_EVENTS = new Set([
  'conversation.item.done',
  'output_audio_buffer.started',
  'output_audio_buffer.stopped',
  'output_audio_buffer.cleared',
  'input_audio_buffer.timeout_triggered',
]);

/** High-volume server events whose only difference is the type name: renamed without parsing. */
export const DELTA_TYPES = new Set([
  'response.output_text.delta',
  'response.output_audio.delta',
  'response.output_audio_transcript.delta',
  'response.text.delta',
  'response.audio.delta',
  'response.audio_transcript.delta',
  'response.function_call_arguments.delta',
]);

export interface EventTranslator {
  /** one client event → the upstream's form */
  toUpstream(event: Json): Json;
  /** one server event → zero or more events in the client's form */
  toClient(event: Json): Json[];
  /** the client's name for a delta event type (fast path: no parsing) */
  renameDelta(type: string): string;
}

export function createTranslator(client: RealtimeGeneration, upstream: RealtimeGeneration): EventTranslator | null {
  if (client === upstream) return null;
  return client === 'beta' ? betaClientOnGaUpstream() : gaClientOnBetaUpstream();
}

function betaClientOnGaUpstream(): EventTranslator {
  return {
    toUpstream: (event) => clientEvent(event, 'ga'),
    toClient(event) {
      const type = String(event.type);
      if (GA_ONLY_SERVER_EVENTS.has(type)) return [];
      return [serverEvent(event, GA_TO_BETA_TYPES[type] ?? type, 'beta')];
    },
    renameDelta: (type) => GA_TO_BETA_TYPES[type] ?? type,
  };
}

function gaClientOnBetaUpstream(): EventTranslator {
  // beta announces an item once (conversation.item.created); GA announces it when added and
  // again when done. Items the model is still writing get their `done` with output_item.done.
  const unfinished = new Set<string>();
  return {
    toUpstream: (event) => clientEvent(event, 'beta'),
    toClient(event) {
      const type = String(event.type);
      if (type === 'conversation.item.created' && isObject(event.item)) {
        const added = serverEvent(event, 'conversation.item.added', 'ga');
        const id = event.item.id;
        if (event.item.status === 'in_progress' && typeof id === 'string') {
          unfinished.add(id);
          return [added];
        }
        return [added, { ...added, type: 'conversation.item.done', event_id: `${String(event.event_id ?? 'event')}_done` }];
      }
      const translated = serverEvent(event, BETA_TO_GA_TYPES[type] ?? type, 'ga');
      if (type === 'response.output_item.done' && isObject(event.item) && typeof event.item.id === 'string' && unfinished.delete(event.item.id)) {
        const done: Json = { type: 'conversation.item.done', event_id: `${String(event.event_id ?? 'event')}_item`, item: translated.item };
        if ('previous_item_id' in event) done.previous_item_id = event.previous_item_id;
        return [done, translated];
      }
      return [translated];
    },
    renameDelta: (type) => BETA_TO_GA_TYPES[type] ?? type,
  };
}

/** a client event → the `target` generation's form (the event must be in the other one) */
export function clientEvent(event: Json, target: RealtimeGeneration): Json {
  switch (event.type) {
    case 'session.update':
      return isObject(event.session) ? { ...event, session: target === 'ga' ? sessionToGa(event.session) : sessionToBeta(event.session) } : event;
    case 'response.create':
      return isObject(event.response) ? { ...event, response: target === 'ga' ? responseToGa(event.response) : responseToBeta(event.response, true) } : event;
    case 'conversation.item.create':
      return isObject(event.item) ? { ...event, item: target === 'ga' ? itemToGa(event.item) : itemToBeta(event.item) } : event;
    default:
      return event;
  }
}

/** a server event renamed to `type` with its embedded objects in the `target` generation's shape */
function serverEvent(event: Json, type: string, target: RealtimeGeneration): Json {
  const out: Json = { ...event, type };
  if (isObject(event.session)) out.session = target === 'ga' ? sessionToGa(event.session) : sessionToBeta(event.session);
  if (isObject(event.response)) out.response = target === 'ga' ? responseToGa(event.response) : responseToBeta(event.response, false);
  if (isObject(event.item)) out.item = target === 'ga' ? itemToGa(event.item) : itemToBeta(event.item);
  if (target === 'beta' && 'part' in event) out.part = partToBeta(event.part);
  return out;
}
