import { usageFromIr } from '../../core/ir/usage.ts';
import type { ChatCall, ChatCodec, DecodedResponse, StreamRelay, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import { IrStreamRelay } from '../_kit/ir-relay.ts';
import { asObject, parseJsonBytes } from '../_kit/read.ts';
import { convertRequest } from './convert-request.ts';
import { convertResponse } from './convert-response.ts';
import { mapAnthropicError } from './errors.ts';
import { PINNED_VERSION } from './manifest.ts';
import { AnthropicStreamDecoder } from './stream-decoder.ts';

/** Chat (IR) to an Anthropic upstream: translated both ways; the client's dialect encodes the result. */
export const anthropicChat: ChatCodec = {
  prepare(call: ChatCall, target: TargetInfo): UpstreamRequest {
    const { body, warnings } = convertRequest(call, target.upstreamModel);
    return { path: '/messages', body: JSON.stringify(body), headers: { 'anthropic-version': PINNED_VERSION }, ...(warnings.length > 0 && { warnings }) };
  },

  decode(call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedResponse {
    const completion = convertResponse(asObject(parseJsonBytes(raw)) ?? {}, target, call.created);
    const message = completion.choices[0]!.message;
    return {
      body: call.output.encodeCompletion(completion),
      contentType: call.output.contentType,
      usage: completion.usage && usageFromIr(completion.usage),
      outputText: (message.content ?? '') + (message.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join(''),
    };
  },

  relay(call: ChatCall, target: TargetInfo): StreamRelay {
    return new IrStreamRelay(new AnthropicStreamDecoder(target, call.created), call.output.streamEncoder());
  },

  mapError: mapAnthropicError,
};
