import { invalidRequest } from '../../core/errors.ts';
import type { IrAssistantMessage, IrChatRequest, IrFunctionTool, IrMessage, IrToolChoice, IrUserPart } from '../../core/ir/chat.ts';

type Json = Record<string, unknown>;

/**
 * A Responses request → the IR chat request: `instructions` first as the system message, then
 * the items of the conversation it continues and its input items in order (messages, function calls folded into the assistant turn before them,
 * function call outputs as tool messages; reasoning items from an earlier answer are dropped).
 * What the IR cannot carry is refused with a 400 naming the field, or dropped with a warning.
 */
export function convertRequest(body: Json, prior: readonly Json[], input: readonly Json[]): { ir: IrChatRequest; warnings: string[] } {
  const warnings: string[] = [];
  const messages: IrMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') messages.push({ role: 'system', content: body.instructions });
  prior.forEach((item, i) => appendItem(messages, item, `previous_response_id (item ${i})`));
  input.forEach((item, i) => appendItem(messages, item, `input[${i}]`));

  const ir: IrChatRequest = { model: String(body.model), messages };
  if (typeof body.max_output_tokens === 'number') ir.max_completion_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') ir.temperature = body.temperature;
  if (typeof body.top_p === 'number') ir.top_p = body.top_p;
  if (typeof body.user === 'string') ir.user = body.user;
  if (typeof body.safety_identifier === 'string') ir.safety_identifier = body.safety_identifier;
  if (Array.isArray(body.tools) && body.tools.length > 0) ir.tools = (body.tools as Json[]).map(convertTool);
  if (body.tool_choice != null) ir.tool_choice = convertToolChoice(body.tool_choice);
  if (typeof body.parallel_tool_calls === 'boolean' && ir.tools) ir.parallel_tool_calls = body.parallel_tool_calls;
  const format = (body.text as { format?: Json } | null | undefined)?.format;
  if (format?.type === 'json_object') ir.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    if (typeof format.name !== 'string') throw invalidRequest("Missing required parameter: 'text.format.name'.", 'text.format.name');
    ir.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, ...(format.schema !== undefined && { schema: format.schema as Json }), ...(typeof format.strict === 'boolean' && { strict: format.strict }), ...(typeof format.description === 'string' && { description: format.description }) },
    };
  }
  const reasoning = (body.reasoning ?? {}) as { effort?: unknown; summary?: unknown };
  if (typeof reasoning.effort === 'string') ir.reasoning_effort = reasoning.effort;
  // a summary asked for: the model's reasoning text, as the vendor shows it, written as the summary
  if (wantsReasoningSummary(body)) ir.include_reasoning = true;
  if (typeof body.service_tier === 'string') ir.service_tier = body.service_tier;
  return { ir, warnings };
}

/** `reasoning.summary` asks for the reasoning text (`auto`, `concise`, `detailed`; not `none`). */
export function wantsReasoningSummary(body: Json): boolean {
  const summary = (body.reasoning as { summary?: unknown } | null | undefined)?.summary;
  return typeof summary === 'string' && summary !== 'none';
}

function appendItem(messages: IrMessage[], item: Json, param: string): void {
  const type = item.type ?? 'message';
  switch (type) {
    case 'message':
      messages.push(convertMessage(item, param));
      return;
    case 'function_call': {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string') throw invalidRequest(`${param} needs call_id and name.`, `${param}.call_id`);
      const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' } };
      const last = messages.at(-1);
      // the calls of one turn (and the text before them) are one assistant message in the IR
      if (last?.role === 'assistant') (last.tool_calls ??= []).push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      return;
    }
    case 'function_call_output':
      if (typeof item.call_id !== 'string') throw invalidRequest(`${param}.call_id is required for a function_call_output.`, `${param}.call_id`);
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output, `${param}.output`) });
      return;
    case 'reasoning':
      // the model's own earlier reasoning: meaningless to another vendor
      return;
    default:
      throw invalidRequest(`Input items of type "${String(type)}" are not supported on this gateway.`, `${param}.type`);
  }
}

function convertMessage(item: Json, param: string): IrMessage {
  const role = item.role;
  const content = item.content;
  if (content === undefined) throw invalidRequest(`${param}.content is required.`, `${param}.content`);
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOnly(content, `${param}.content`) };
    case 'assistant': {
      const message: IrAssistantMessage = { role: 'assistant', content: textOnly(content, `${param}.content`) };
      return message;
    }
    case 'user':
      return { role: 'user', content: typeof content === 'string' ? content : (content as Json[]).map((part, j) => userPart(part, `${param}.content[${j}]`)) };
    default:
      throw invalidRequest(`${param}.role must be "user", "assistant", "system" or "developer".`, `${param}.role`);
  }
}

/** A message's text: a string, or its text parts joined (input_text, output_text; a refusal as text). */
function textOnly(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  return (content as Json[])
    .map((part, j) => {
      if (part.type === 'input_text' || part.type === 'output_text') return String(part.text ?? '');
      if (part.type === 'refusal') return String(part.refusal ?? '');
      throw invalidRequest(`Content parts of type "${String(part.type)}" are not supported in this message.`, `${param}[${j}].type`);
    })
    .join('');
}

function userPart(part: Json, param: string): IrUserPart {
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'input_image': {
      if (typeof part.image_url !== 'string') throw invalidRequest('input_image needs an image_url (a URL or a data URL) on this gateway.', `${param}.image_url`);
      const detail = part.detail === 'low' || part.detail === 'high' || part.detail === 'auto' ? part.detail : undefined;
      return { type: 'image_url', image_url: { url: part.image_url, ...(detail && { detail }) } };
    }
    case 'input_file':
      if (typeof part.file_data !== 'string' && typeof part.file_id !== 'string') throw invalidRequest('input_file needs file_data or file_id on this gateway.', `${param}.file_data`);
      return {
        type: 'file',
        file: { ...(typeof part.file_data === 'string' && { file_data: part.file_data }), ...(typeof part.file_id === 'string' && { file_id: part.file_id }), ...(typeof part.filename === 'string' && { filename: part.filename }) },
      };
    default:
      throw invalidRequest(`Content parts of type "${String(part.type)}" are not supported on this gateway.`, `${param}.type`);
  }
}

/** A function call's output: a string, or its text parts joined. */
function outputText(output: unknown, param: string): string {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) throw invalidRequest(`${param} must be a string or a list of input_text parts.`, param);
  return textOnly(output, param);
}

function convertTool(tool: Json, i: number): IrFunctionTool {
  if (tool.type !== 'function') throw invalidRequest(`Built-in tools ("${String(tool.type)}") are not served by this gateway; only function tools are.`, `tools[${i}].type`);
  if (typeof tool.name !== 'string' || tool.name === '') throw invalidRequest(`Missing required parameter: 'tools[${i}].name'.`, `tools[${i}].name`);
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(typeof tool.description === 'string' && { description: tool.description }),
      parameters: (tool.parameters as Json | null | undefined) ?? { type: 'object', properties: {} },
      ...(typeof tool.strict === 'boolean' && { strict: tool.strict }),
    },
  };
}

function convertToolChoice(choice: unknown): IrToolChoice {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  const object = choice as Json;
  if (typeof choice === 'object' && object.type === 'function' && typeof object.name === 'string') return { type: 'function', function: { name: object.name } };
  throw invalidRequest('tool_choice must be "auto", "none", "required" or {"type": "function", "name": …}.', 'tool_choice');
}
