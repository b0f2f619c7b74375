import { usageFromIr } from '../../core/ir/usage.ts';
import type { ChatCall, ChatCodec, DecodedCompletion, IrStreamDecoder, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import { asObject, parseJsonBytes } from '../_kit/read.ts';
import { convertRequest } from './convert-request.ts';
import { convertResponse } from './convert-response.ts';
import { mapGeminiError } from './errors.ts';
import { geminiPassthrough } from './passthrough.ts';
import { GeminiStreamDecoder } from './stream-decoder.ts';

/** Chat (IR) to a Gemini upstream: `generateContent`, or `streamGenerateContent?alt=sse` for streams. */
export const geminiChat: ChatCodec = {
  prepare(call: ChatCall, target: TargetInfo): UpstreamRequest {
    const { body, warnings } = convertRequest(call, target.upstreamModel);
    const method = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return { path: `/models/${encodeURIComponent(target.upstreamModel)}:${method}`, body: JSON.stringify(body), ...(warnings.length > 0 && { warnings }) };
  },

  decode(call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedCompletion {
    const completion = convertResponse(asObject(parseJsonBytes(raw)) ?? {}, target, call.created);
    return { completion, usage: completion.usage && usageFromIr(completion.usage) };
  },

  streamDecoder(call: ChatCall, target: TargetInfo): IrStreamDecoder {
    return new GeminiStreamDecoder(target, call.created);
  },

  // a client speaking Gemini's own wire gets its request relayed as is
  passthroughs: [geminiPassthrough],

  mapError: mapGeminiError,
};
