import type { CompletionsCall, CompletionsCodec, StreamRelay, TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { dropUnknownFields } from '../_kit/drop-fields.ts';
import { COMPLETION_FIELDS } from './allowed-fields.ts';
import { decodeOpenAIJson, passthroughBody } from './chat.ts';
import { mapOpenAIError } from './errors.ts';
import { OpenAIPassthroughRelay } from './passthrough-relay.ts';

/** Legacy text completions, passed through like chat (same stream framing and usage chunk). */
export const openaiCompletions: CompletionsCodec = {
  prepare(call: CompletionsCall, target: TargetInfo) {
    const body = passthroughBody(call, target);
    const warnings = dropUnknownFields(body, COMPLETION_FIELDS);
    return { path: '/completions', body: JSON.stringify(body), ...(warnings && { warnings }) };
  },

  decode(_call, target, raw) {
    return decodeOpenAIJson(raw, target, completionText);
  },

  relay(call: CompletionsCall, target: TargetInfo): StreamRelay {
    return new OpenAIPassthroughRelay(target, call.clientWantsUsage, completionText);
  },

  mapError: mapOpenAIError,
};

function completionText(json: Record<string, unknown>): string {
  const choices = (json.choices as Array<{ text?: unknown }> | undefined) ?? [];
  return choices.map((c) => (typeof c.text === 'string' ? c.text : '')).join('');
}
