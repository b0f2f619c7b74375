import type { Usage } from '../../core/usage.ts';

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; audio_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number; audio_tokens?: number } | null;
}

const int = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

/** OpenAI usage → neutral usage. `prompt_tokens` already includes cached tokens. */
export function fromOpenAIUsage(raw: unknown): Usage | null {
  if (raw === null || typeof raw !== 'object') return null;
  const usage = raw as OpenAIUsage;
  const out: Usage = {
    inputTokens: int(usage.prompt_tokens),
    outputTokens: int(usage.completion_tokens),
    cachedInputTokens: int(usage.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: int(usage.prompt_tokens_details?.cache_write_tokens),
    reasoningTokens: int(usage.completion_tokens_details?.reasoning_tokens),
    units: 0,
  };
  // audio in the prompt or the answer (audio chat models): priced at the audio prices
  const audioIn = int(usage.prompt_tokens_details?.audio_tokens);
  const audioOut = int(usage.completion_tokens_details?.audio_tokens);
  if (audioIn > 0) out.audioInputTokens = audioIn;
  if (audioOut > 0) out.audioOutputTokens = audioOut;
  return out;
}

/** Neutral usage → OpenAI usage (the gateway's own count, where the vendor reported none). */
export function toOpenAIUsage(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens, ...(usage.cacheWriteTokens > 0 && { cache_write_tokens: usage.cacheWriteTokens }) },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

/** The Responses API's usage object → neutral usage. `input_tokens` already includes cached tokens; `output_tokens` the reasoning. */
export function fromResponsesUsage(raw: unknown): Usage | null {
  if (raw === null || typeof raw !== 'object') return null;
  const usage = raw as ResponsesUsage;
  return {
    inputTokens: int(usage.input_tokens),
    outputTokens: int(usage.output_tokens),
    cachedInputTokens: int(usage.input_tokens_details?.cached_tokens),
    cacheWriteTokens: 0,
    reasoningTokens: int(usage.output_tokens_details?.reasoning_tokens),
    units: 0,
  };
}
