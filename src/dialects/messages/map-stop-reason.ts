import type { FinishReason } from '../../core/ir/chat.ts';

/** Unified finish reason → messages `stop_reason` (protocols.md §4.4). */
export function stopReasonOf(finish: FinishReason | null, stopSequence: string | null | undefined): string {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return stopSequence ? 'stop_sequence' : 'end_turn';
  }
}
