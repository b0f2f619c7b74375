import type { Usage } from '../core/usage.ts';
import { isObject } from './translate/shapes.ts';

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

/**
 * The usage of one realtime response, from `response.done` (same shape in both generations):
 * input includes cached and audio tokens, which are subsets of it; output includes audio.
 * null when the response carries no usage object.
 */
export function readRealtimeUsage(response: unknown): Usage | null {
  if (!isObject(response) || !isObject(response.usage)) return null;
  const u = response.usage;
  const inDetails = isObject(u.input_token_details) ? u.input_token_details : {};
  const cachedDetails = isObject(inDetails.cached_tokens_details) ? inDetails.cached_tokens_details : {};
  const outDetails = isObject(u.output_token_details) ? u.output_token_details : {};
  return {
    inputTokens: count(u.input_tokens),
    outputTokens: count(u.output_tokens),
    cachedInputTokens: count(inDetails.cached_tokens),
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    units: 0,
    audioInputTokens: count(inDetails.audio_tokens),
    cachedAudioInputTokens: count(cachedDetails.audio_tokens),
    audioOutputTokens: count(outDetails.audio_tokens),
  };
}
