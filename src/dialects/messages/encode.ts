import type { IrCompletion } from '../../core/ir/chat.ts';
import { messageId, messagesUsage } from './encode-usage.ts';
import { stopReasonOf } from './map-stop-reason.ts';

/**
 * What a thinking block from another family is signed with: nothing. Only Anthropic can sign its
 * thinking; an empty signature says so honestly, and the block, sent back, is dropped on the way
 * to a family other than Anthropic's (convert-request.ts) and before one of Anthropic's (decode.ts).
 */
export const UNSIGNED = '';

/**
 * IR completion → a messages `message` (protocols.md §3.4); the first choice (messages has no `n`).
 * With `thinking` (the request turned it on) the model's reasoning text leads as a thinking block.
 */
export function encodeMessage(completion: IrCompletion, thinking = false): string {
  const choice = completion.choices[0];
  const content: unknown[] = [];
  if (thinking && choice?.message.reasoning) content.push({ type: 'thinking', thinking: choice.message.reasoning, signature: UNSIGNED });
  const text = choice?.message.content ?? choice?.message.refusal;
  if (text) content.push({ type: 'text', text });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseInput(call.function.arguments) });
  }
  return JSON.stringify({
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason ?? null, choice?.stop_sequence),
    stop_sequence: choice?.stop_sequence ?? null,
    usage: messagesUsage(completion.usage),
  });
}

/** Tool input is an object on this wire; arguments the model got wrong become `{}`. */
export function parseInput(text: string): unknown {
  try {
    const value = JSON.parse(text === '' ? '{}' : text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
