import type { IrCompletion, IrToolCall } from '../../core/ir/chat.ts';
import type { TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { asArray, asObject, asString, type JsonObject } from '../_kit/read.ts';
import { mapStopReason } from './map-finish-reason.ts';
import { usageToIr } from './map-usage.ts';
import { packThinking, type ThinkingBlock } from './thinking-state.ts';

/**
 * Anthropic message → IR completion (protocols.md §4.2): text blocks concatenated, tool_use
 * blocks as tool calls (the first carrying the thinking blocks before it), the text of the
 * thinking blocks concatenated as `reasoning` (redacted ones have none), the stop reason mapped
 * with the raw one kept.
 */
export function convertResponse(json: JsonObject, target: TargetInfo, created: number): IrCompletion {
  let text: string | null = null;
  const toolCalls: IrToolCall[] = [];
  let thinking: ThinkingBlock[] = [];
  let reasoning = '';
  for (const raw of asArray(json.content)) {
    const block = asObject(raw);
    switch (block?.type) {
      case 'text':
        text = (text ?? '') + (asString(block.text) ?? '');
        break;
      case 'thinking': {
        const words = asString(block.thinking) ?? '';
        reasoning += words;
        thinking.push({ type: 'thinking', thinking: words, signature: asString(block.signature) ?? '' });
        break;
      }
      case 'redacted_thinking':
        thinking.push({ type: 'redacted_thinking', data: asString(block.data) ?? '' });
        break;
      case 'tool_use':
        toolCalls.push({
          id: packThinking(asString(block.id) ?? '', thinking),
          type: 'function',
          function: { name: asString(block.name) ?? '', arguments: JSON.stringify(block.input ?? {}) },
        });
        thinking = [];
        break;
      default:
      // server tools, citations-only blocks and future kinds have no chat-completions form
    }
  }
  const stopReason = asString(json.stop_reason) ?? null;
  return {
    id: asString(json.id) ?? 'msg_gateway',
    created,
    model: target.publicModel,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, ...(toolCalls.length > 0 && { tool_calls: toolCalls }), refusal: null, ...(reasoning !== '' && { reasoning }) },
        finish_reason: mapStopReason(stopReason),
        raw_finish_reason: stopReason,
        stop_sequence: asString(json.stop_sequence) ?? null,
      },
    ],
    usage: usageToIr(json.usage),
  };
}
