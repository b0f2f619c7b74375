import type { Usage } from '../usage.ts';
import type { IrUsage } from './chat.ts';

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

/** IR usage (OpenAI convention: prompt tokens include cached and cache-write tokens) → billing usage. */
export function usageFromIr(usage: IrUsage): Usage {
  return {
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    cachedInputTokens: count(usage.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: count(usage.prompt_tokens_details?.cache_write_tokens),
    reasoningTokens: count(usage.completion_tokens_details?.reasoning_tokens),
    units: 0,
    ...(count(usage.prompt_tokens_details?.audio_tokens) > 0 && { audioInputTokens: count(usage.prompt_tokens_details?.audio_tokens) }),
  };
}

/** Builds IR usage from its parts; the details appear only when they say something. */
export function irUsage(parts: { prompt: number; completion: number; cached?: number; cacheWrite?: number; reasoning?: number; total?: number; audioInput?: number }): IrUsage {
  const usage: IrUsage = {
    prompt_tokens: parts.prompt,
    completion_tokens: parts.completion,
    total_tokens: parts.total ?? parts.prompt + parts.completion,
    prompt_tokens_details: { cached_tokens: parts.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: parts.reasoning ?? 0 },
  };
  if (parts.cacheWrite) usage.prompt_tokens_details!.cache_write_tokens = parts.cacheWrite;
  if (parts.audioInput) usage.prompt_tokens_details!.audio_tokens = parts.audioInput;
  return usage;
}
