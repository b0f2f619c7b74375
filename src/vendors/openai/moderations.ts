import { emptyUsage } from '../../core/usage.ts';
import type { ModerationsCodec } from '../../core/contracts/vendor-codec.ts';
import { decodeOpenAIJson } from './chat.ts';
import { mapOpenAIError } from './errors.ts';

/** Moderations pass through; one request is one billed unit. */
export const openaiModerations: ModerationsCodec = {
  prepare(call, target) {
    return { path: '/moderations', body: JSON.stringify({ ...call.body, model: target.upstreamModel }) };
  },
  decode(_call, target, raw) {
    const decoded = decodeOpenAIJson(raw, target, () => '');
    return { body: decoded.body, contentType: decoded.contentType, usage: { ...emptyUsage(), units: 1 } };
  },
  mapError: mapOpenAIError,
};
