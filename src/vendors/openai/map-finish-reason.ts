import type { FinishReason } from '../../core/ir/chat.ts';

/** OpenAI-compatible servers use the IR's own values; `function_call` is the deprecated name of `tool_calls`. */
export function mapOpenAIFinishReason(raw: string): FinishReason {
  switch (raw) {
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return raw;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'stop';
  }
}
