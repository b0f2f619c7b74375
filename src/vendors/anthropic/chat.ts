import { usageFromIr } from '../../core/ir/usage.ts';
import type { ChatCall, ChatCodec, DecodedCompletion, IrStreamDecoder, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import { asObject, parseJsonBytes } from '../_kit/read.ts';
import { convertRequest } from './convert-request.ts';
import { convertResponse } from './convert-response.ts';
import { mapAnthropicError } from './errors.ts';
import { PINNED_VERSION } from './manifest.ts';
import { AnthropicStreamDecoder } from './stream-decoder.ts';

/** Chat (IR) to an Anthropic upstream: translated both ways. */
export const anthropicChat: ChatCodec = {
  prepare(call: ChatCall, target: TargetInfo): UpstreamRequest {
    const { body, warnings } = convertRequest(call, target.upstreamModel);
    return { path: '/messages', body: JSON.stringify(body), headers: { 'anthropic-version': PINNED_VERSION }, ...(warnings.length > 0 && { warnings }) };
  },

  decode(call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedCompletion {
    const completion = convertResponse(asObject(parseJsonBytes(raw)) ?? {}, target, call.created);
    return { completion, usage: completion.usage && usageFromIr(completion.usage) };
  },

  streamDecoder(call: ChatCall, target: TargetInfo): IrStreamDecoder {
    return new AnthropicStreamDecoder(target, call.created);
  },

  mapError: mapAnthropicError,
};
