// Realtime sessions that send malformed frames: not JSON, not an object, no type, unknown types,
// the right type with wrong field types, binary frames, audio that is not base64, huge frames.
import fc from 'fast-check';
import type { RealtimeScript } from './request.ts';
import { hostileValue } from './values.ts';

const KNOWN_TYPES = ['session.update', 'conversation.item.create', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'response.create', 'response.cancel', 'conversation.item.truncate', 'conversation.item.delete'];

const frame: fc.Arbitrary<RealtimeScript['frames'][number]> = fc.oneof(
  fc.constantFrom('not json', '', '[]', 'null', '1', '"text"', '{}', '{"type":1}', '{"type":null}', '{"type":"', `{"type":"${'t'.repeat(500)}"}`, '{"type":"\\u0000"}').map((text) => ({ text })),
  fc.tuple(fc.constantFrom(...KNOWN_TYPES), fc.constantFrom('session', 'item', 'audio', 'response', 'event_id', 'item_id', 'content_index', 'audio_end_ms'), hostileValue).map(([type, field, value]) => ({ text: JSON.stringify({ type, [field]: value }) })),
  fc.constantFrom(
    { type: 'input_audio_buffer.append', audio: '!!not base64!!' },
    { type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text' }] } },
    { type: 'conversation.item.create', item: { type: 'message', role: 'user', content: 'a string' } },
    { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'mgx_forged', output: 1 } },
    { type: 'session.update', session: { tools: 'none', max_response_output_tokens: 1e308 } },
    { type: 'response.create', response: { max_output_tokens: -1, modalities: 'text' } },
  ).map((event) => ({ text: JSON.stringify(event) })),
  fc.integer({ min: 0, max: 4096 }).map((binary) => ({ binary })),
);

export const realtimeCases: fc.Arbitrary<RealtimeScript> = fc
  .record({ model: fc.constant('gpt-realtime'), frames: fc.array(frame, { minLength: 1, maxLength: 5 }) })
  .map(({ model, frames }) => ({ route: 'WS /v1/realtime', model, frames, mutation: `${frames.length} malformed frame(s)` }));
