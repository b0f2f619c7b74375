import type { IrUsage } from '../../core/ir/chat.ts';
import { irUsage, usageFromIr } from '../../core/ir/usage.ts';
import type { Usage } from '../../core/usage.ts';
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

/**
 * The vendor's own tools it ran and bills per call, from `usage.server_tool_use`
 * (`{web_search_requests: 2}` → `{web_search: 2}`); undefined when none ran.
 */
export function serverToolCalls(raw: unknown): Record<string, number> | undefined {
  const used = asObject(asObject(raw)?.server_tool_use);
  if (!used) return undefined;
  let calls: Record<string, number> | undefined;
  for (const [key, value] of Object.entries(used)) {
    const count = asCount(value);
    if (key.endsWith('_requests') && count > 0) (calls ??= {})[key.slice(0, -'_requests'.length)] = count;
  }
  return calls;
}

/** A native messages answer's usage, with the server tool calls it ran. */
export function messagesUsage(raw: unknown): Usage | null {
  const ir = usageToIr(raw);
  if (!ir) return null;
  const usage = usageFromIr(ir);
  const calls = serverToolCalls(raw);
  if (calls) usage.toolCalls = calls;
  return usage;
}
