import { usageFromIr } from '../../core/ir/usage.ts';
import type { ChatCall, ChatCodec, DecodedResponse, StreamRelay, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import { IrStreamRelay } from '../_kit/ir-relay.ts';
import { asObject, parseJsonBytes } from '../_kit/read.ts';
import { convertRequest } from './convert-request.ts';
import { convertResponse } from './convert-response.ts';
import { mapGeminiError } from './errors.ts';
import { GeminiStreamDecoder } from './stream-decoder.ts';

/** Chat (IR) to a Gemini upstream: `generateContent`, or `streamGenerateContent?alt=sse` for streams. */
export const geminiChat: ChatCodec = {
  prepare(call: ChatCall, target: TargetInfo): UpstreamRequest {
    const { body, warnings } = convertRequest(call, target.upstreamModel);
    const method = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return { path: `/models/${encodeURIComponent(target.upstreamModel)}:${method}`, body: JSON.stringify(body), ...(warnings.length > 0 && { warnings }) };
  },

  decode(call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedResponse {
    const completion = convertResponse(asObject(parseJsonBytes(raw)) ?? {}, target, call.created);
    return {
      body: call.output.encodeCompletion(completion),
      contentType: call.output.contentType,
      usage: completion.usage && usageFromIr(completion.usage),
      outputText: completion.choices.map((c) => (c.message.content ?? '') + (c.message.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join('')).join(''),
    };
  },

  relay(call: ChatCall, target: TargetInfo): StreamRelay {
    return new IrStreamRelay(new GeminiStreamDecoder(target, call.created), call.output.streamEncoder());
  },

  mapError: mapGeminiError,
};
