import type { FinishReason, IrCompletion, IrOutputImage, IrToolCall, IrUsage } from '../../core/ir/chat.ts';

type Json = Record<string, unknown>;

const GOOGLE_REASONS = new Set(['STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'MALFORMED_FUNCTION_CALL', 'IMAGE_SAFETY']);
const UNIFIED: Readonly<Record<FinishReason, string>> = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY' };

/** The vendor's own reason when it is Google's, else the unified one in Google's words (a tool call ends with STOP there). */
export function finishReasonOf(reason: FinishReason | null, raw: string | null): string {
  if (raw !== null && GOOGLE_REASONS.has(raw)) return raw;
  return UNIFIED[reason ?? 'stop'];
}

/** IR usage → `usageMetadata`: candidates exclude the thoughts, which Google counts apart. */
export function usageMetadata(usage: IrUsage | null): Json {
  const prompt = usage?.prompt_tokens ?? 0;
  const thoughts = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: completion - thoughts,
    totalTokenCount: usage?.total_tokens ?? prompt + completion,
    ...(cached > 0 && { cachedContentTokenCount: cached }),
    ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
  };
}

/** A tool call as a `functionCall` part; its id is the gateway's (a thought signature rides in it), arguments the model got wrong become `{}`. */
export function functionCallPart(call: IrToolCall): Json {
  return { functionCall: { id: call.id, name: call.function.name, args: parseArgs(call.function.arguments) } };
}

export function imagePart(image: IrOutputImage): Json {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(image.image_url.url);
  return match ? { inlineData: { mimeType: match[1], data: match[2] } } : { fileData: { fileUri: image.image_url.url } };
}

/**
 * IR completion → `GenerateContentResponse`: each choice a candidate. With `thoughts` (the request
 * set `includeThoughts`) the model's reasoning text leads as a `thought: true` part, as Gemini shows it.
 */
export function encodeGenerateContent(completion: IrCompletion, thoughts = false): string {
  const candidates = completion.choices.map((choice) => {
    const parts: Json[] = [];
    if (thoughts && choice.message.reasoning) parts.push({ text: choice.message.reasoning, thought: true });
    const text = choice.message.content ?? choice.message.refusal;
    if (text) parts.push({ text });
    for (const image of choice.message.images ?? []) parts.push(imagePart(image));
    for (const call of choice.message.tool_calls ?? []) parts.push(functionCallPart(call));
    if (parts.length === 0) parts.push({ text: '' });
    return { content: { role: 'model', parts }, finishReason: finishReasonOf(choice.finish_reason, choice.raw_finish_reason), index: choice.index };
  });
  return JSON.stringify({ candidates, usageMetadata: usageMetadata(completion.usage), modelVersion: completion.model, responseId: completion.id });
}

function parseArgs(text: string): unknown {
  try {
    const value = JSON.parse(text === '' ? '{}' : text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
