import { emptyUsage } from '../../core/usage.ts';
import type { CountTokensCall, CountTokensCodec, DecodedResponse, MessagesCall, MessagesCodec, StreamRelay, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import { asArray, asObject, asString, parseJsonBytes } from '../_kit/read.ts';
import { mapAnthropicError } from './errors.ts';
import { messagesUsage } from './map-usage.ts';
import { dropUnknownFields } from '../_kit/drop-fields.ts';
import { MESSAGES_FIELDS } from './allowed-fields.ts';
import { AnthropicPassthroughRelay } from './passthrough-relay.ts';

/**
 * The native messages format to a messages-family upstream: the client's body passes through
 * untouched but for the model id, with the client's version and beta headers; the upstream key
 * is the provider's. Usage is read on the side.
 */
export const anthropicMessages: MessagesCodec = {
  prepare(call: MessagesCall, target: TargetInfo): UpstreamRequest {
    const body = { ...call.body, model: target.upstreamModel };
    const warnings = dropUnknownFields(body, MESSAGES_FIELDS);
    return { path: '/messages', body: JSON.stringify(body), headers: nativeHeaders(call), ...(warnings && { warnings }) };
  },

  decode(_call: MessagesCall, target: TargetInfo, raw: Uint8Array): DecodedResponse {
    const json = asObject(parseJsonBytes(raw)) ?? {};
    const usage = messagesUsage(json.usage);
    const renamed = target.upstreamModel !== target.publicModel && typeof json.model === 'string';
    if (renamed) json.model = target.publicModel;
    return {
      body: renamed ? JSON.stringify(json) : raw,
      contentType: 'application/json',
      usage,
      outputText: asArray(json.content)
        .map((block) => asString(asObject(block)?.text) ?? JSON.stringify(asObject(block)?.input ?? ''))
        .join(''),
    };
  },

  relay(_call: MessagesCall, target: TargetInfo): StreamRelay {
    return new AnthropicPassthroughRelay(target);
  },

  mapError: mapAnthropicError,
};

/** `POST /v1/messages/count_tokens`, passed through; counting is free, so the usage is zero. */
export const anthropicCountTokens: CountTokensCodec = {
  prepare(call: CountTokensCall, target: TargetInfo): UpstreamRequest {
    return { path: '/messages/count_tokens', body: JSON.stringify({ ...call.body, model: target.upstreamModel }), headers: nativeHeaders(call) };
  },

  decode(_call: CountTokensCall, _target: TargetInfo, raw: Uint8Array): DecodedResponse {
    return { body: raw, contentType: 'application/json', usage: emptyUsage() };
  },

  mapError: mapAnthropicError,
};

function nativeHeaders(call: { nativeVersion: string; nativeBeta: string | undefined }): Record<string, string> {
  return { 'anthropic-version': call.nativeVersion, ...(call.nativeBeta && { 'anthropic-beta': call.nativeBeta }) };
}
