import type { IrChoice, IrCompletion, IrToolCall, IrUsage } from '../../core/ir/chat.ts';
import type { TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { asArray, asCount, asNumber, asObject, asString, type JsonObject } from '../_kit/read.ts';
import { mapOpenAIFinishReason } from './map-finish-reason.ts';

/**
 * OpenAI-family answers → IR, for the pipeline's translated path (used when the client does not
 * read this family's wire). The IR is this shape, so this mostly checks types.
 */
export function completionToIr(json: JsonObject, target: TargetInfo, created: number): IrCompletion {
  return {
    id: asString(json.id) ?? 'chatcmpl-gateway',
    created: asNumber(json.created) ?? created,
    model: target.publicModel,
    choices: asArray(json.choices).map((raw, i) => choiceToIr(asObject(raw) ?? {}, i)),
    usage: usageToIr(json.usage),
  };
}

function choiceToIr(choice: JsonObject, position: number): IrChoice {
  const message = asObject(choice.message) ?? {};
  const toolCalls = asArray(message.tool_calls).flatMap((raw): IrToolCall[] => {
    const call = asObject(raw);
    const fn = asObject(call?.function);
    if (!call || !fn) return [];
    return [{ id: asString(call.id) ?? '', type: 'function', function: { name: asString(fn.name) ?? '', arguments: asString(fn.arguments) ?? '' } }];
  });
  const raw = asString(choice.finish_reason) ?? null;
  const reasoning = reasoningOf(message);
  return {
    index: asNumber(choice.index) ?? position,
    message: {
      role: 'assistant',
      content: asString(message.content) ?? null,
      ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      refusal: asString(message.refusal) ?? null,
      ...(reasoning && { reasoning }),
    },
    finish_reason: raw === null ? 'stop' : mapOpenAIFinishReason(raw),
    raw_finish_reason: raw,
  };
}

/**
 * The reasoning text OpenAI-compatible reasoning servers add to a message or a delta (OpenAI
 * itself never does): `reasoning_content` (DeepSeek, vLLM) or `reasoning` as a string
 * (OpenRouter, newer vLLM). One of them only: a server that writes both writes the same text.
 */
export function reasoningOf(message: JsonObject): string | undefined {
  return asString(message.reasoning_content) || asString(message.reasoning) || undefined;
}

export function usageToIr(raw: unknown): IrUsage | null {
  const usage = asObject(raw);
  if (!usage) return null;
  const prompt = asObject(usage.prompt_tokens_details);
  const completion = asObject(usage.completion_tokens_details);
  const cacheWrite = asCount(prompt?.cache_write_tokens);
  return {
    prompt_tokens: asCount(usage.prompt_tokens),
    completion_tokens: asCount(usage.completion_tokens),
    total_tokens: asCount(usage.total_tokens),
    prompt_tokens_details: { cached_tokens: asCount(prompt?.cached_tokens), ...(cacheWrite > 0 && { cache_write_tokens: cacheWrite }) },
    completion_tokens_details: { reasoning_tokens: asCount(completion?.reasoning_tokens) },
  };
}
