import type { FinishReason } from '../../core/ir/chat.ts';

/** Anthropic `stop_reason` → unified finish reason (protocols.md §4.2). */
export function mapStopReason(raw: string | null | undefined): FinishReason {
  switch (raw) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    // end_turn, stop_sequence, pause_turn (a paused server-tool turn) and anything new
    default:
      return 'stop';
  }
}
