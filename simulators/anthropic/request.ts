// Reads a messages request (protocols.md §3.1–3.3) into the facts the simulator needs and checks
// what the vendor checks, with its wording: required fields and ranges, tool_use / tool_result
// pairing, and (with thinking on) the signed thinking blocks in front of the last tool use.
import { isRecord } from '../_kit/http.ts';
import { countTokens } from '../_kit/text.ts';
import type { FunctionTool, ToolChoice } from '../_kit/tools.ts';
import { isAdaptiveGeneration } from './model-rules.ts';
import { invalidRequest, type SimulatedError } from './errors.ts';
import { verifyThinking } from './signature.ts';

export interface MessagesRequest {
  model: string;
  maxTokens: number;
  stream: boolean;
  stop: string[];
  tools: FunctionTool[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  thinking: boolean;
  /** text of the last user turn (its tool results included) */
  lastUserText: string;
  /** the last user turn answers tool calls */
  answersTools: boolean;
  promptTokens: number;
  /** web searches run (one per web search server tool), reported in `usage.server_tool_use` */
  webSearches: number;
}

const IMAGE_TOKENS = 85;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export function readMessagesRequest(body: unknown, version: string): MessagesRequest | SimulatedError {
  if (!isRecord(body)) return invalidRequest('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') return invalidRequest('model: Field required');
  if (body.max_tokens === undefined) return invalidRequest('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return invalidRequest('max_tokens: Input should be greater than or equal to 1');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return invalidRequest('messages: at least one message is required');
  for (const field of ['temperature', 'top_p'] as const) {
    const value = body[field];
    if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1)) return invalidRequest(`${field}: Input should be less than or equal to 1`);
  }
  if (isAdaptiveGeneration(body.model)) {
    if (body.temperature !== undefined && body.temperature !== 1) return invalidRequest('temperature: this model only supports the default sampling parameters');
    if (typeof body.top_p === 'number' && body.top_p < 0.99) return invalidRequest('top_p: this model only supports the default sampling parameters');
    if (body.top_k !== undefined) return invalidRequest('top_k: this model only supports the default sampling parameters');
    if (isRecord(body.thinking) && body.thinking.type === 'enabled') return invalidRequest('thinking.type "enabled" is not supported on this model; use "adaptive".');
  }
  const thinking = isRecord(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');
  if (thinking && body.thinking && isRecord(body.thinking) && body.thinking.type === 'enabled') {
    const budget = body.thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024) return invalidRequest('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (budget >= (body.max_tokens as number)) return invalidRequest('`max_tokens` must be greater than `thinking.budget_tokens`.');
  }
  if (thinking && body.temperature !== undefined && body.temperature !== 1) return invalidRequest('`temperature` may only be set to 1 when thinking is enabled.');
  const tools = readTools(body.tools);
  if (!Array.isArray(tools)) return tools;
  const choice = readToolChoice(body.tool_choice, tools);
  if ('status' in choice) return choice;
  if (thinking && (choice.choice.mode === 'required' || choice.choice.mode === 'named')) {
    return invalidRequest('Thinking may not be enabled when tool_choice forces tool use.');
  }
  const systemTokens = countTokens(textOf(body.system));
  const conversation = readConversation(body.messages, thinking, version);
  if ('status' in conversation) return conversation;
  return {
    model: body.model,
    maxTokens: body.max_tokens as number,
    stream: body.stream === true,
    stop: Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s): s is string => typeof s === 'string') : [],
    tools,
    toolChoice: choice.choice,
    parallelToolCalls: !choice.disableParallel,
    thinking,
    lastUserText: conversation.lastUserText,
    answersTools: conversation.answersTools,
    promptTokens: 3 + systemTokens + conversation.tokens + (tools.length > 0 ? countTokens(JSON.stringify(body.tools)) : 0),
    webSearches: Array.isArray(body.tools) ? body.tools.filter((t) => isRecord(t) && typeof t.type === 'string' && t.type.startsWith('web_search_')).length : 0,
  };
}

/** Text of a string or of the text-bearing blocks in a block list. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      if (!isRecord(block)) return '';
      if (block.type === 'text' && typeof block.text === 'string') return block.text;
      if (block.type === 'tool_result') return textOf(block.content);
      if (block.type === 'tool_use') return `${String(block.name)} ${JSON.stringify(block.input)}`;
      if (block.type === 'thinking' && typeof block.thinking === 'string') return block.thinking;
      return '';
    })
    .join(' ');
}

interface Conversation {
  tokens: number;
  lastUserText: string;
  answersTools: boolean;
}

function readConversation(messages: unknown[], thinking: boolean, version: string): Conversation | SimulatedError {
  let tokens = 0;
  let lastUserText = '';
  let answersTools = false;
  let pendingToolUses: string[] = [];
  let lastAssistantWithTools = -1;
  const roles = version >= '2026-10-21' ? ['user', 'assistant', 'system'] : ['user', 'assistant'];
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message) || typeof message.role !== 'string' || !roles.includes(message.role)) {
      return invalidRequest(`messages.${i}.role: Input should be ${roles.map((r) => `'${r}'`).join(' or ')}`);
    }
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? message.content : null;
    if (!blocks) return invalidRequest(`messages.${i}.content: Input should be a valid list`);
    const results = blocks.filter((b) => isRecord(b) && b.type === 'tool_result').map((b) => String((b as { tool_use_id?: unknown }).tool_use_id));
    for (const id of results) {
      if (!pendingToolUses.includes(id)) {
        return invalidRequest(`messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
      }
    }
    const missing = pendingToolUses.filter((id) => !results.includes(id));
    if (missing.length > 0) {
      return invalidRequest(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
    }
    for (const [j, block] of blocks.entries()) {
      if (isRecord(block) && block.type === 'image' && isRecord(block.source) && block.source.type === 'base64' && !IMAGE_TYPES.has(String(block.source.media_type))) {
        return invalidRequest(`messages.${i}.content.${j}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
      }
    }
    pendingToolUses = message.role === 'assistant' ? blocks.filter((b) => isRecord(b) && b.type === 'tool_use').map((b) => String((b as { id?: unknown }).id)) : [];
    if (pendingToolUses.length > 0) lastAssistantWithTools = i;
    if (message.role === 'user') {
      lastUserText = textOf(blocks);
      answersTools = results.length > 0;
    }
    tokens += 3 + countTokens(message.role) + countTokens(textOf(blocks)) + IMAGE_TOKENS * blocks.filter((b) => isRecord(b) && b.type === 'image').length;
  }
  if (pendingToolUses.length > 0) return { tokens, lastUserText, answersTools };
  if (thinking && lastAssistantWithTools >= 0) {
    const checked = checkThinking(messages[lastAssistantWithTools] as Record<string, unknown>, lastAssistantWithTools);
    if (checked) return checked;
  }
  return { tokens, lastUserText, answersTools };
}

function checkThinking(message: Record<string, unknown>, i: number): SimulatedError | undefined {
  const blocks = message.content as unknown[];
  const first = blocks[0];
  if (!isRecord(first) || (first.type !== 'thinking' && first.type !== 'redacted_thinking')) {
    return invalidRequest(
      `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${isRecord(first) ? String(first.type) : 'nothing'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`,
    );
  }
  for (const [j, block] of blocks.entries()) {
    if (isRecord(block) && block.type === 'thinking' && !verifyThinking(String(block.thinking), String(block.signature))) {
      return invalidRequest(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
    }
  }
  return undefined;
}

function readTools(value: unknown): FunctionTool[] | SimulatedError {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return invalidRequest('tools: Input should be a valid list');
  const tools: FunctionTool[] = [];
  for (const [i, tool] of value.entries()) {
    // the vendor's own tools (web search…) carry a versioned type and no schema: the simulator runs none of them
    if (isRecord(tool) && typeof tool.type === 'string' && tool.type !== 'custom') continue;
    if (!isRecord(tool) || typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
      return invalidRequest(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    }
    if (!isRecord(tool.input_schema)) return invalidRequest(`tools.${i}.custom.input_schema: Field required`);
    tools.push({ name: tool.name, parameters: tool.input_schema });
  }
  return tools;
}

function readToolChoice(value: unknown, tools: readonly FunctionTool[]): { choice: ToolChoice; disableParallel: boolean } | SimulatedError {
  if (value === undefined) return { choice: { mode: tools.length > 0 ? 'auto' : 'none' }, disableParallel: false };
  if (!isRecord(value)) return invalidRequest('tool_choice: Input should be a valid dictionary');
  const disableParallel = value.disable_parallel_tool_use === true;
  switch (value.type) {
    case 'auto':
      return { choice: { mode: 'auto' }, disableParallel };
    case 'any':
      return { choice: { mode: 'required' }, disableParallel };
    case 'none':
      return { choice: { mode: 'none' }, disableParallel };
    case 'tool':
      if (!tools.some((t) => t.name === value.name)) return invalidRequest(`tool_choice.tool.name: no tool named '${String(value.name)}'`);
      return { choice: { mode: 'named', name: String(value.name) }, disableParallel };
    default:
      return invalidRequest("tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'");
  }
}
