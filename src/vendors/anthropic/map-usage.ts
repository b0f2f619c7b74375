import type { IrUsage } from '../../core/ir/chat.ts';
import { irUsage } from '../../core/ir/usage.ts';
import { asCount, asObject, type JsonObject } from '../_kit/read.ts';

/**
 * Anthropic usage → IR usage. `input_tokens` counts only uncached input: the prompt is
 * input + cache writes + cache reads (protocols.md §3.4, §4.2).
 */
export function usageToIr(raw: unknown): IrUsage | null {
  const usage = asObject(raw);
  if (!usage) return null;
  const cacheWrite = asCount(usage.cache_creation_input_tokens);
  const cached = asCount(usage.cache_read_input_tokens);
  return irUsage({
    prompt: asCount(usage.input_tokens) + cacheWrite + cached,
    completion: asCount(usage.output_tokens),
    cached,
    cacheWrite,
    reasoning: asCount(asObject(usage.output_tokens_details)?.thinking_tokens),
  });
}

/**
 * Streams report usage in `message_start` and, cumulatively, in each `message_delta`: a field
 * present in a later report replaces the earlier value, never adds to it.
 */
export function mergeUsage(previous: JsonObject | undefined, next: unknown): JsonObject | undefined {
  const update = asObject(next);
  if (!update) return previous;
  const merged: JsonObject = { ...previous };
  for (const [key, value] of Object.entries(update)) if (value !== null && value !== undefined) merged[key] = value;
  return merged;
}
