import { packToolCallId, ToolCallIdReader } from '../_kit/tool-call-id.ts';

/**
 * With extended thinking on, the assistant turn that holds a tool use must be sent back with its
 * thinking blocks, unmodified (protocols.md §3.2). OpenAI-shaped clients drop them, so they ride
 * in the id of the turn's first tool call (see _kit/tool-call-id.ts).
 */
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

export function packThinking(toolUseId: string, blocks: readonly ThinkingBlock[]): string {
  return blocks.length === 0 ? toolUseId : packToolCallId(toolUseId, { thinking: blocks });
}

/** `ids` reads one request's ids (one budget for the state they restore). */
export function unpackThinking(toolCallId: string, ids = new ToolCallIdReader()): { id: string; blocks: ThinkingBlock[] } {
  const { id, state } = ids.read(toolCallId);
  const blocks = Array.isArray(state?.thinking) ? (state.thinking as unknown[]).filter(isThinkingBlock) : [];
  return { id, blocks };
}

function isThinkingBlock(value: unknown): value is ThinkingBlock {
  const block = value as { type?: unknown; thinking?: unknown; signature?: unknown; data?: unknown } | null;
  if (!block || typeof block !== 'object') return false;
  if (block.type === 'thinking') return typeof block.thinking === 'string' && typeof block.signature === 'string';
  return block.type === 'redacted_thinking' && typeof block.data === 'string';
}
