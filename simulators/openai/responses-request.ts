// Reads a Responses API request (POST /v1/responses) into the few facts the simulator needs,
// validating the way OpenAI does (400 invalid_request_error naming `param`). The conversation is
// the previous response's input and output (when `previous_response_id` names a stored one) and
// then this request's input, every item given an id as the vendor lists them.
import { isRecord } from '../_kit/http.ts';
import type { FunctionTool, ToolChoice } from '../_kit/tools.ts';
import { IMAGE_TOKENS } from './chat-request.ts';
import { newResponseId } from './endpoint.ts';
import { invalidRequest, type SimulatedError } from './errors.ts';
import { countTokens } from './text.ts';

/** An item of a conversation in the Responses wire shape, with its id. */
export type WireItem = Record<string, unknown> & { id: string };

export type TextFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: unknown; strict: boolean };

export interface ResponsesRequest {
  model: string;
  stream: boolean;
  store: boolean;
  instructions: string | null;
  /** this request's input items, ids given */
  input: WireItem[];
  /** the whole conversation the reply answers: the previous response's input and output, then `input` */
  conversation: WireItem[];
  tools: FunctionTool[];
  /** the `tools` field as the response echoes it */
  toolsEcho: unknown[];
  toolChoice: ToolChoice;
  /** the `tool_choice` field as the response echoes it */
  toolChoiceEcho: unknown;
  parallelToolCalls: boolean;
  format: TextFormat;
  maxOutputTokens?: number;
  reasoning: { effort: string | null; summary: string | null };
  previousResponseId: string | null;
  temperature: number;
  topP: number;
  metadata: Record<string, unknown>;
  user: string | null;
  promptTokens: number;
}

/** A stored response as `previous_response_id` reads it back. */
export interface PriorTurn {
  input: readonly WireItem[];
  output: readonly WireItem[];
}

// The vendor's floor for max_output_tokens.
const MIN_OUTPUT_TOKENS = 16;
const TOKENS_PER_ITEM = 3;
const TOKENS_FOR_REPLY_PRIMING = 3;
const INPUT_PART_TYPES = new Set(['input_text', 'input_image', 'input_file', 'output_text', 'refusal']);

export function readResponsesRequest(body: unknown, lookup: (id: string) => PriorTurn | undefined): ResponsesRequest | SimulatedError {
  if (!isRecord(body)) return invalidRequest('The request body must be a JSON object.', null);
  if (typeof body.model !== 'string' || body.model === '') return invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  const max = readMaxOutputTokens(body.max_output_tokens);
  if (typeof max === 'string') return invalidRequest(max, 'max_output_tokens', 'integer_below_min_value');
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string') {
    return invalidRequest("Invalid type for 'instructions': expected a string, but got an object instead.", 'instructions', 'invalid_type');
  }
  const input = readInput(body.input);
  if (!Array.isArray(input)) return input;

  const previousResponseId = typeof body.previous_response_id === 'string' ? body.previous_response_id : null;
  let prior: PriorTurn | undefined;
  if (previousResponseId !== null) {
    prior = lookup(previousResponseId);
    if (!prior) return invalidRequest(`Previous response with id '${previousResponseId}' not found.`, 'previous_response_id', 'previous_response_not_found');
  }
  const conversation = [...(prior?.input ?? []), ...(prior?.output ?? []), ...input];
  const orphan = orphanToolOutput(conversation);
  if (orphan !== undefined) return invalidRequest(`No tool call found for function call output with call_id ${orphan}.`, 'input');

  const tools = readTools(body.tools);
  if ('status' in tools) return tools;
  const toolChoice = readToolChoice(body.tool_choice, tools.functions);
  if ('status' in toolChoice) return toolChoice;
  const format = readFormat(body.text, conversation, body.instructions);
  if ('status' in format) return format;

  const instructions = typeof body.instructions === 'string' ? body.instructions : null;
  let promptTokens = TOKENS_FOR_REPLY_PRIMING + (instructions === null ? 0 : TOKENS_PER_ITEM + countTokens(instructions));
  for (const item of conversation) promptTokens += TOKENS_PER_ITEM + countTokens(itemText(item)) + imagesOf(item) * IMAGE_TOKENS;
  if (tools.functions.length > 0) promptTokens += countTokens(JSON.stringify(body.tools));

  const reasoning = isRecord(body.reasoning) ? body.reasoning : {};
  return {
    model: body.model,
    stream: body.stream === true,
    store: body.store !== false,
    instructions,
    input,
    conversation,
    tools: tools.functions,
    toolsEcho: tools.echo,
    toolChoice: toolChoice.choice,
    toolChoiceEcho: toolChoice.echo,
    parallelToolCalls: body.parallel_tool_calls !== false,
    format,
    ...(max === undefined ? {} : { maxOutputTokens: max }),
    reasoning: {
      effort: typeof reasoning.effort === 'string' ? reasoning.effort : null,
      summary: typeof reasoning.summary === 'string' ? reasoning.summary : null,
    },
    previousResponseId,
    temperature: typeof body.temperature === 'number' ? body.temperature : 1,
    topP: typeof body.top_p === 'number' ? body.top_p : 1,
    metadata: isRecord(body.metadata) ? body.metadata : {},
    user: typeof body.user === 'string' ? body.user : null,
    promptTokens,
  };
}

/** Where `[[sim:…]]` directives are read: the last user message of the input. */
export function responsesDirectiveText(body: unknown): string {
  if (!isRecord(body)) return '';
  if (typeof body.input === 'string') return body.input;
  if (!Array.isArray(body.input)) return '';
  for (let i = body.input.length - 1; i >= 0; i--) {
    const item: unknown = body.input[i];
    if (isRecord(item) && item.role === 'user') return itemText(item);
  }
  return '';
}

/** The text of an item as the model reads it: message text, a call's name and arguments, a tool's output. */
export function itemText(item: Record<string, unknown>): string {
  if (item.type === 'function_call') return `${String(item.name)} ${String(item.arguments)}`;
  if (item.type === 'function_call_output') return typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
  const { content } = item;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (typeof part.text === 'string') texts.push(part.text);
    else if (typeof part.refusal === 'string') texts.push(part.refusal);
  }
  return texts.join(' ');
}

/** Text of the last user message of a conversation: what the reply echoes. */
export function lastUserText(conversation: readonly WireItem[]): string {
  for (let i = conversation.length - 1; i >= 0; i--) if (conversation[i]!.role === 'user') return itemText(conversation[i]!);
  return '';
}

function imagesOf(item: Record<string, unknown>): number {
  return Array.isArray(item.content) ? item.content.filter((part) => isRecord(part) && part.type === 'input_image').length : 0;
}

function readMaxOutputTokens(value: unknown): number | undefined | string {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return `Invalid type for 'max_output_tokens': expected an integer, but got ${typeof value} instead.`;
  if (value < MIN_OUTPUT_TOKENS) return `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${value} instead.`;
  return value;
}

function readInput(value: unknown): WireItem[] | SimulatedError {
  if (value === undefined || value === null) return invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  if (typeof value === 'string') return [userMessage(value)];
  if (!Array.isArray(value)) return invalidRequest("Invalid type for 'input': expected one of a string or an array of input items, but got an object instead.", 'input', 'invalid_type');
  const items: WireItem[] = [];
  for (const [index, raw] of value.entries()) {
    if (!isRecord(raw)) return invalidRequest(`Invalid type for 'input[${index}]': expected an input item, but got ${typeof raw} instead.`, `input[${index}]`, 'invalid_type');
    const type = raw.type ?? (raw.role === undefined ? undefined : 'message');
    if (type === 'message') {
      const read = readMessage(raw, index);
      if ('error' in read) return read.error;
      items.push(read.item);
    } else if (type === 'function_call') {
      for (const field of ['call_id', 'name', 'arguments'] as const) {
        if (typeof raw[field] !== 'string') return invalidRequest(`Missing required parameter: 'input[${index}].${field}'.`, `input[${index}].${field}`, 'missing_required_parameter');
      }
      items.push({ ...raw, type, id: typeof raw.id === 'string' ? raw.id : newResponseId('fc_') });
    } else if (type === 'function_call_output') {
      if (typeof raw.call_id !== 'string') return invalidRequest(`Missing required parameter: 'input[${index}].call_id'.`, `input[${index}].call_id`, 'missing_required_parameter');
      if (raw.output === undefined) return invalidRequest(`Missing required parameter: 'input[${index}].output'.`, `input[${index}].output`, 'missing_required_parameter');
      items.push({ ...raw, type, id: typeof raw.id === 'string' ? raw.id : newResponseId('fco_') });
    } else if (type === 'reasoning' || type === 'item_reference') {
      // Earlier reasoning and references to stored items add nothing the simulator reads.
      items.push({ ...raw, type, id: typeof raw.id === 'string' ? raw.id : newResponseId('rs_') });
    } else {
      return invalidRequest(`Invalid value: '${String(type)}'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning' and 'item_reference'.`, `input[${index}].type`, 'invalid_value');
    }
  }
  return items;
}

function userMessage(text: string): WireItem {
  return { id: newResponseId('msg_'), type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

function readMessage(raw: Record<string, unknown>, index: number): { item: WireItem } | { error: SimulatedError } {
  const role = raw.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    return { error: invalidRequest(`Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`, `input[${index}].role`, 'invalid_value') };
  }
  const id = typeof raw.id === 'string' ? raw.id : newResponseId('msg_');
  if (typeof raw.content === 'string') {
    const type = role === 'assistant' ? 'output_text' : 'input_text';
    return { item: { id, type: 'message', role, content: [{ type, text: raw.content }], ...(role === 'assistant' && { status: 'completed' }) } };
  }
  if (!Array.isArray(raw.content)) return { error: invalidRequest(`Missing required parameter: 'input[${index}].content'.`, `input[${index}].content`, 'missing_required_parameter') };
  for (const [at, part] of raw.content.entries()) {
    if (!isRecord(part) || typeof part.type !== 'string' || !INPUT_PART_TYPES.has(part.type)) {
      return { error: invalidRequest(
        `Invalid value: '${isRecord(part) ? String(part.type) : typeof part}'. Supported values are: 'input_text', 'input_image', 'input_file', 'output_text' and 'refusal'.`,
        `input[${index}].content[${at}].type`,
        'invalid_value',
      ) };
    }
    if (part.type === 'input_image' && typeof part.image_url !== 'string' && typeof part.file_id !== 'string') {
      return { error: invalidRequest(`Missing required parameter: 'input[${index}].content[${at}].image_url'.`, `input[${index}].content[${at}].image_url`, 'missing_required_parameter') };
    }
  }
  return { item: { ...raw, id, type: 'message', role, content: raw.content } };
}

/** The call_id of a function_call_output no earlier function_call answers to. */
function orphanToolOutput(conversation: readonly WireItem[]): string | undefined {
  const calls = new Set<unknown>();
  for (const item of conversation) {
    if (item.type === 'function_call') calls.add(item.call_id);
    else if (item.type === 'function_call_output' && !calls.has(item.call_id)) return String(item.call_id);
  }
  return undefined;
}

function readTools(value: unknown): { functions: FunctionTool[]; echo: unknown[] } | SimulatedError {
  if (value === undefined || value === null) return { functions: [], echo: [] };
  if (!Array.isArray(value)) return invalidRequest("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
  const functions: FunctionTool[] = [];
  const echo: unknown[] = [];
  for (const [index, tool] of value.entries()) {
    if (!isRecord(tool) || typeof tool.type !== 'string') return invalidRequest(`Missing required parameter: 'tools[${index}].type'.`, `tools[${index}].type`, 'missing_required_parameter');
    if (tool.type !== 'function') {
      // Built-in tools are accepted and never called by the simulator.
      echo.push(tool);
      continue;
    }
    if (typeof tool.name !== 'string') return invalidRequest(`Missing required parameter: 'tools[${index}].name'.`, `tools[${index}].name`, 'missing_required_parameter');
    functions.push({ name: tool.name, parameters: tool.parameters });
    echo.push({ type: 'function', name: tool.name, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict ?? true });
  }
  return { functions, echo };
}

function readToolChoice(value: unknown, tools: readonly FunctionTool[]): { choice: ToolChoice; echo: unknown } | SimulatedError {
  if (value === undefined || value === null) return { choice: { mode: tools.length > 0 ? 'auto' : 'none' }, echo: 'auto' };
  if (value === 'none' || value === 'auto' || value === 'required') return { choice: { mode: tools.length > 0 ? value : 'none' }, echo: value };
  if (isRecord(value) && value.type === 'function' && typeof value.name === 'string') {
    const { name } = value;
    if (!tools.some((tool) => tool.name === name)) {
      return invalidRequest(`Tool choice 'function' not found in 'tools' parameter.`, 'tool_choice');
    }
    return { choice: { mode: 'named', name }, echo: { type: 'function', name } };
  }
  if (isRecord(value) && value.type === 'allowed_tools' && Array.isArray(value.tools)) {
    const allowed = value.tools.flatMap((tool: unknown) => (isRecord(tool) && typeof tool.name === 'string' ? [tool.name] : []));
    return { choice: { mode: value.mode === 'required' ? 'required' : 'auto', allowed }, echo: value };
  }
  return invalidRequest("Invalid value for 'tool_choice'.", 'tool_choice', 'invalid_value');
}

function readFormat(text: unknown, conversation: readonly WireItem[], instructions: unknown): TextFormat | SimulatedError {
  if (!isRecord(text) || !isRecord(text.format)) return { type: 'text' };
  const format = text.format;
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') {
    const said = [typeof instructions === 'string' ? instructions : '', ...conversation.map(itemText)].some((words) => /json/i.test(words));
    if (!said) {
      return invalidRequest("Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.", 'input');
    }
    return { type: 'json_object' };
  }
  if (format.type === 'json_schema') {
    if (typeof format.name !== 'string') return invalidRequest("Missing required parameter: 'text.format.name'.", 'text.format.name', 'missing_required_parameter');
    if (!isRecord(format.schema)) return invalidRequest("Missing required parameter: 'text.format.schema'.", 'text.format.schema', 'missing_required_parameter');
    return { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict === true };
  }
  return invalidRequest(`Invalid value: '${String(format.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`, 'text.format.type', 'invalid_value');
}
