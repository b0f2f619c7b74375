import type { IrChoice, IrChunk, IrChunkChoice, IrCompletion, IrDelta, IrToolCall, IrToolCallDelta, IrUsage } from '../../core/ir/chat.ts';
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
  return {
    index: asNumber(choice.index) ?? position,
    message: { role: 'assistant', content: asString(message.content) ?? null, ...(toolCalls.length > 0 && { tool_calls: toolCalls }), refusal: asString(message.refusal) ?? null },
    finish_reason: raw === null ? 'stop' : mapOpenAIFinishReason(raw),
    raw_finish_reason: raw,
  };
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

/** One `chat.completion.chunk` → IR; null when it carries no choice (the usage chunk). */
export function chunkToIr(json: JsonObject, target: TargetInfo, created: number): IrChunk | null {
  const choices = asArray(json.choices).map((raw, i) => chunkChoiceToIr(asObject(raw) ?? {}, i));
  if (choices.length === 0) return null;
  return { id: asString(json.id) ?? 'chatcmpl-gateway', created: asNumber(json.created) ?? created, model: target.publicModel, choices };
}

function chunkChoiceToIr(choice: JsonObject, position: number): IrChunkChoice {
  const delta = asObject(choice.delta) ?? {};
  const out: IrDelta = {};
  if (delta.role === 'assistant') out.role = 'assistant';
  const content = asString(delta.content);
  if (content !== undefined) out.content = content;
  const refusal = asString(delta.refusal);
  if (refusal !== undefined) out.refusal = refusal;
  const calls = asArray(delta.tool_calls).flatMap((raw, i): IrToolCallDelta[] => {
    const call = asObject(raw);
    if (!call) return [];
    const fn = asObject(call.function);
    const item: IrToolCallDelta = { index: asNumber(call.index) ?? i };
    const id = asString(call.id);
    if (id !== undefined) item.id = id;
    if (call.type === 'function' || id !== undefined) item.type = 'function';
    if (fn) {
      item.function = {};
      const name = asString(fn.name);
      const args = asString(fn.arguments);
      if (name !== undefined) item.function.name = name;
      if (args !== undefined) item.function.arguments = args;
    }
    return [item];
  });
  if (calls.length > 0) out.tool_calls = calls;
  const raw = asString(choice.finish_reason) ?? null;
  return { index: asNumber(choice.index) ?? position, delta: out, finish_reason: raw === null ? null : mapOpenAIFinishReason(raw), raw_finish_reason: raw };
}
