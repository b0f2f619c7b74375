// What the simulated model answers: content blocks, stop reason and usage, derived only from the
// request (and the scenario plan), so the same request always gets the same answer.
import type { ScenarioPlan } from '../_kit/scenarios.ts';
import { countTokens, snippet, textOfTokens, withFiller } from '../_kit/text.ts';
import { chooseToolCalls } from '../_kit/tools.ts';
import type { MessagesRequest } from './request.ts';
import { signThinking } from './signature.ts';

export type ReplyBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface Reply {
  blocks: ReplyBlock[];
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stopSequence: string | null;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; server_tool_use?: { web_search_requests: number } };
}

export function buildReply(request: MessagesRequest, plan: ScenarioPlan, streamChunks: number, seed: string): Reply {
  const blocks: ReplyBlock[] = [];
  if (request.thinking) {
    const thinking = `Thinking about: ${snippet(request.lastUserText, 40) || '(nothing)'}.`;
    blocks.push({ type: 'thinking', thinking, signature: signThinking(thinking) });
  }
  let stopReason: Reply['stopReason'] = 'end_turn';
  let stopSequence: string | null = null;
  const calls = plan.replyText !== undefined || request.answersTools ? [] : chooseToolCalls(request.tools, request.toolChoice, request.lastUserText, request.parallelToolCalls, seed, 'toolu_');
  if (calls.length > 0) {
    blocks.push({ type: 'text', text: `Let me call ${calls.map((c) => c.name).join(' and ')}.` });
    for (const call of calls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) as Record<string, unknown> });
    stopReason = 'tool_use';
  } else {
    const opening = request.answersTools ? `Tool result: ${snippet(request.lastUserText, 80)} |` : `Echo: ${snippet(request.lastUserText, 60) || '(empty)'} |`;
    let text = plan.replyText ?? (plan.longAnswerTokens === undefined ? withFiller(opening, streamChunks) : textOfTokens(opening, plan.longAnswerTokens));
    const hit = earliestStop(text, request.stop);
    if (hit) {
      text = text.slice(0, hit.at);
      stopReason = 'stop_sequence';
      stopSequence = hit.sequence;
    }
    const budget = request.maxTokens - blocks.reduce((sum, b) => sum + (b.type === 'thinking' ? countTokens(b.thinking) : 0), 0);
    const truncated = plan.ignoreCap ? text : truncate(text, Math.max(0, budget));
    if (truncated !== text) stopReason = 'max_tokens';
    blocks.push({ type: 'text', text: truncated });
  }
  const output = blocks.reduce((sum, b) => sum + countTokens(b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : b.name + JSON.stringify(b.input)), 0);
  const cached = Math.min(plan.usage?.cachedTokens ?? 0, request.promptTokens);
  const written = Math.min(plan.usage?.cacheWriteTokens ?? 0, request.promptTokens - cached);
  const prompt = plan.usage?.promptTokens ?? request.promptTokens;
  return {
    blocks,
    stopReason,
    stopSequence,
    usage: {
      input_tokens: Math.max(0, prompt - cached - written),
      output_tokens: plan.usage?.completionTokens ?? output,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: cached,
      ...(request.webSearches > 0 && { server_tool_use: { web_search_requests: request.webSearches } }),
    },
  };
}

function earliestStop(text: string, stops: readonly string[]): { at: number; sequence: string } | undefined {
  let best: { at: number; sequence: string } | undefined;
  for (const sequence of stops) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0 && (!best || at < best.at)) best = { at, sequence };
  }
  return best;
}

/** The longest prefix of whole words within `maxTokens` tokens. */
function truncate(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  const words = text.split(/(?<=\s)/);
  // a binary search over the word count: long answers run to thousands of words
  let fits = 0;
  let over = words.length;
  while (over - fits > 1) {
    const middle = (fits + over) >> 1;
    if (countTokens(words.slice(0, middle).join('')) <= maxTokens) fits = middle;
    else over = middle;
  }
  return words.slice(0, fits).join('');
}
