// Reads a Chat Completions request body (protocols.md 1.1–1.3) into the few facts the simulator
// needs, validating minimally the way OpenAI does (400 invalid_request_error naming `param`).
import { isRecord } from '../_kit/http.ts';
import type { FunctionTool, ToolChoice } from '../_kit/tools.ts';
import { optionalPositiveInt, readStopSequences } from './endpoint.ts';
import { invalidRequest, type SimulatedError } from './errors.ts';
import { countTokens } from './text.ts';

export interface ChatMessageFacts {
  role: string;
  text: string;
  imageCount: number;
}

export type { FunctionTool, ToolChoice } from '../_kit/tools.ts';

export interface ChatRequest {
  model: string;
  messages: ChatMessageFacts[];
  n: number;
  maxTokens?: number;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
  tools: FunctionTool[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  promptTokens: number;
  /** `modalities` includes "image": the reply carries an image (OpenAI-compatible image-output servers) */
  imageOutput: boolean;
  /** `modalities` includes "audio": the reply's tokens are reported as audio tokens */
  audioOutput: boolean;
  /** the service tier the answer reports: a requested flex/priority tier, else "default" */
  serviceTier: string;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
// Fixed cost of one image part, whatever its size (the "low detail" price of gpt-4o).
export const IMAGE_TOKENS = 85;
// OpenAI cookbook formula: every message costs 3 tokens of framing, a name 1 more, the reply 3.
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const TOKENS_FOR_REPLY_PRIMING = 3;

export function readChatRequest(body: unknown): ChatRequest | SimulatedError {
  if (!isRecord(body)) return invalidRequest('The request body must be a JSON object.', null);
  if (typeof body.model !== 'string' || body.model === '') return invalidRequest('you must provide a model parameter', 'model');
  if (body.messages === undefined) return invalidRequest("Missing required parameter: 'messages'.", 'messages');
  if (!Array.isArray(body.messages)) return invalidRequest("Invalid type for 'messages': expected an array.", 'messages', 'invalid_type');
  if (body.messages.length === 0) {
    return invalidRequest("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  }
  const n = optionalPositiveInt(body.n, 'n', 128);
  if (typeof n === 'string') return invalidRequest(n, 'n');
  const maxField = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  const maxTokens = optionalPositiveInt(body[maxField], maxField);
  if (typeof maxTokens === 'string') return invalidRequest(maxTokens, maxField);
  const stop = readStopSequences(body.stop);
  if (typeof stop === 'string') return invalidRequest(stop, 'stop');
  const stream = body.stream === true;
  if (body.stream_options !== undefined && body.stream_options !== null && !stream) {
    return invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }

  const messages: ChatMessageFacts[] = [];
  let promptTokens = TOKENS_FOR_REPLY_PRIMING;
  for (const [index, message] of body.messages.entries()) {
    if (!isRecord(message) || typeof message.role !== 'string' || !ROLES.has(message.role)) {
      return invalidRequest(`Invalid value for 'messages[${index}].role'.`, `messages[${index}].role`);
    }
    const facts = readMessage(message.role, message);
    messages.push(facts);
    promptTokens += TOKENS_PER_MESSAGE + countTokens(facts.role) + countTokens(facts.text) + facts.imageCount * IMAGE_TOKENS;
    if (typeof message.name === 'string') promptTokens += TOKENS_PER_NAME + countTokens(message.name);
  }

  const tools = readTools(body.tools);
  if (!Array.isArray(tools)) return tools;
  if (tools.length > 0) promptTokens += countTokens(JSON.stringify(body.tools));
  const toolChoice = readToolChoice(body.tool_choice, tools);
  if ('status' in toolChoice) return toolChoice;

  return {
    model: body.model,
    messages,
    n: n ?? 1,
    ...(maxTokens === undefined ? {} : { maxTokens }),
    stop,
    stream,
    includeUsage: stream && isRecord(body.stream_options) && body.stream_options.include_usage === true,
    tools,
    toolChoice,
    parallelToolCalls: body.parallel_tool_calls !== false,
    promptTokens,
    imageOutput: Array.isArray(body.modalities) && body.modalities.includes('image'),
    audioOutput: Array.isArray(body.modalities) && body.modalities.includes('audio'),
    serviceTier: body.service_tier === 'flex' || body.service_tier === 'priority' ? body.service_tier : 'default',
  };
}

/** Text of the last user message: what the reply echoes and where `[[sim:…]]` directives are read. */
export function lastUserText(messages: readonly ChatMessageFacts[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i]!.text;
  return '';
}

export function chatDirectiveText(body: unknown): string {
  if (!isRecord(body) || !Array.isArray(body.messages)) return '';
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const message: unknown = body.messages[i];
    if (isRecord(message) && message.role === 'user') return readMessage('user', message).text;
  }
  return '';
}

function readMessage(role: string, message: Record<string, unknown>): ChatMessageFacts {
  const texts: string[] = [];
  let imageCount = 0;
  const { content } = message;
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (!isRecord(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
      else if (part.type === 'refusal' && typeof part.refusal === 'string') texts.push(part.refusal);
      else if (part.type === 'image_url') imageCount++;
    }
  }
  // Tool calls the assistant made earlier are part of the prompt too.
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (isRecord(call) && isRecord(call.function)) texts.push(`${String(call.function.name)} ${String(call.function.arguments)}`);
    }
  }
  return { role, text: texts.join(' '), imageCount };
}

function readTools(value: unknown): FunctionTool[] | SimulatedError {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return invalidRequest("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
  const tools: FunctionTool[] = [];
  for (const [index, tool] of value.entries()) {
    // Custom (free-form) tools are accepted but never called by the simulator.
    if (!isRecord(tool) || tool.type !== 'function') continue;
    if (!isRecord(tool.function) || typeof tool.function.name !== 'string') {
      return invalidRequest(`Missing required parameter: 'tools[${index}].function.name'.`, `tools[${index}].function.name`);
    }
    tools.push({ name: tool.function.name, parameters: tool.function.parameters });
  }
  return tools;
}

function readToolChoice(value: unknown, tools: readonly FunctionTool[]): ToolChoice | SimulatedError {
  if (value === undefined || value === null) return { mode: tools.length > 0 ? 'auto' : 'none' };
  if (tools.length === 0) {
    return invalidRequest("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  }
  if (value === 'none' || value === 'auto' || value === 'required') return { mode: value };
  if (isRecord(value) && value.type === 'function' && isRecord(value.function) && typeof value.function.name === 'string') {
    const { name } = value.function;
    if (!tools.some((tool) => tool.name === name)) {
      return invalidRequest(`Invalid value for 'tool_choice': no function named '${name}' was specified in the 'tools' parameter.`, 'tool_choice');
    }
    return { mode: 'named', name };
  }
  if (isRecord(value) && value.type === 'allowed_tools' && isRecord(value.allowed_tools) && Array.isArray(value.allowed_tools.tools)) {
    const allowed = value.allowed_tools.tools.flatMap((tool: unknown) =>
      isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === 'string' ? [tool.function.name] : [],
    );
    return { mode: value.allowed_tools.mode === 'required' ? 'required' : 'auto', allowed };
  }
  return invalidRequest("Invalid value for 'tool_choice'.", 'tool_choice');
}
