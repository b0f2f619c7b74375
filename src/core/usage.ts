/**
 * What one request consumed, in the vendor-neutral form every codec produces and the price book
 * prices. Token counts follow the OpenAI convention: `inputTokens` includes cached and
 * cache-write tokens, which are subsets of it.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** non-token units: images, seconds of audio or video, characters, requests */
  units: number;
  /** audio subsets (realtime): of `inputTokens`, of `cachedInputTokens`, of `outputTokens`; absent = 0 */
  audioInputTokens?: number;
  cachedAudioInputTokens?: number;
  audioOutputTokens?: number;
  /** the paid service tier the request ran at (`flex`, `priority`…), priced by `service_tiers`; absent = standard */
  serviceTier?: string;
  /** built-in tool calls the vendor ran and bills per call, by tool (`web_search`: 2), priced by `per_tool_call` */
  toolCalls?: Record<string, number>;
  /** a reservation of a request that enabled long context: priced at the long-context prices whatever its size */
  longContext?: boolean;
}

export const emptyUsage = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  units: 0,
});
