import type { FinishReason } from '../../core/ir/chat.ts';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'IMAGE_OTHER']);

/**
 * Gemini `finishReason` → unified (protocols.md §5.8). A reply with function calls ends with
 * STOP: there is no tool finish reason, so the caller says whether calls were made.
 */
export function mapFinishReason(raw: string, madeCalls: boolean): FinishReason {
  if (raw === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(raw)) return 'content_filter';
  return madeCalls ? 'tool_calls' : 'stop';
}
