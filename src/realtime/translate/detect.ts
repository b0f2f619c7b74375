// Which interface generation a client frame is written in (protocols.md §2.9), read from the
// fields only one generation has. The handshake's `OpenAI-Beta` header is only a first guess: the
// contract accepts both forms whatever the headers.
import type { RealtimeGeneration } from '../../core/contracts/realtime-codec.ts';
import { isObject, type Json } from './shapes.ts';

/** response.create fields that exist in one generation only */
const BETA_RESPONSE_FIELDS = ['modalities', 'max_response_output_tokens', 'voice', 'output_audio_format', 'temperature'];
const GA_RESPONSE_FIELDS = ['output_modalities', 'max_output_tokens', 'audio'];
/** assistant content part types (user ones are shared) */
const BETA_ASSISTANT_PARTS = new Set(['text', 'audio']);
const GA_ASSISTANT_PARTS = new Set(['output_text', 'output_audio']);

/** The generation a client event shows; undefined when both generations write it alike. */
export function detectGeneration(event: Json): RealtimeGeneration | undefined {
  switch (event.type) {
    case 'session.update':
      // the current interface requires `session.type`; the beta one has no such field
      return isObject(event.session) ? (event.session.type === undefined ? 'beta' : 'ga') : undefined;
    case 'response.create': {
      const response = event.response;
      if (!isObject(response)) return undefined;
      if (GA_RESPONSE_FIELDS.some((f) => f in response)) return 'ga';
      if (BETA_RESPONSE_FIELDS.some((f) => f in response)) return 'beta';
      return undefined;
    }
    case 'conversation.item.create': {
      const item = event.item;
      if (!isObject(item) || item.role !== 'assistant' || !Array.isArray(item.content)) return undefined;
      for (const part of item.content) {
        if (!isObject(part) || typeof part.type !== 'string') continue;
        if (GA_ASSISTANT_PARTS.has(part.type)) return 'ga';
        if (BETA_ASSISTANT_PARTS.has(part.type)) return 'beta';
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
