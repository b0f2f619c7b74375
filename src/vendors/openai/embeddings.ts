import type { EmbeddingsCodec } from '../../core/contracts/vendor-codec.ts';
import { decodeOpenAIJson } from './chat.ts';
import { mapOpenAIError } from './errors.ts';

/** Embeddings pass through; the client's `encoding_format` is what the upstream is asked for. */
export const openaiEmbeddings: EmbeddingsCodec = {
  prepare(call, target) {
    return { path: '/embeddings', body: JSON.stringify({ ...call.body, model: target.upstreamModel }) };
  },

  decode(_call, target, raw) {
    return decodeOpenAIJson(raw, target, () => '');
  },

  mapError: mapOpenAIError,
};
