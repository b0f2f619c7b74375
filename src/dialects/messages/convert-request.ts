import { invalidRequest } from '../../core/errors.ts';
import type { IrChatRequest, IrFunctionTool, IrMessage, IrToolCall, IrToolChoice, IrUserPart } from '../../core/ir/chat.ts';

type Json = Record<string, unknown>;
type Block = Json & { type: string };

/**
 * A native messages request → the IR (protocols.md §4.4, §4.1 read backwards), for providers that
 * do not speak the messages format. Tool results become tool messages (ahead of the rest of their
 * user turn), tool_use blocks tool calls with their ids kept, thinking blocks are dropped.
 * Settings the IR cannot carry are refused or dropped with a warning, as README.md lists.
 */
export function convertRequest(body: Json): { ir: IrChatRequest; warnings: string[] } {
  const warnings: string[] = [];
  const messages: IrMessage[] = [];
  const system = textOf(body.system, 'system');
  if (system !== '') messages.push({ role: 'system', content: system });
  (body.messages as Json[]).forEach((message, i) => messages.push(...convertMessage(message, i)));

  const ir: IrChatRequest = { model: String(body.model), messages, max_completion_tokens: body.max_tokens as number };
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) ir.stop = body.stop_sequences as string[];
  if (typeof body.temperature === 'number') ir.temperature = body.temperature;
  if (typeof body.top_p === 'number') ir.top_p = body.top_p;
  const userId = (body.metadata as { user_id?: unknown } | undefined)?.user_id;
  if (typeof userId === 'string') ir.user = userId;
  if (Array.isArray(body.tools) && body.tools.length > 0) ir.tools = (body.tools as Json[]).map(convertTool);
  const choice = body.tool_choice as Json | undefined;
  if (choice) {
    ir.tool_choice = convertToolChoice(choice);
    if (choice.disable_parallel_tool_use === true && ir.tools) ir.parallel_tool_calls = false;
  }
  const format = (body.output_config as { format?: { type?: unknown; schema?: unknown } } | undefined)?.format;
  if (format?.type === 'json_schema') ir.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema as Json } };

  if (body.top_k !== undefined) warnings.push('top_k dropped (not supported by this model)');
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (showsThinking(body)) ir.include_reasoning = true;
  // the vendor reasons as it reasons: only whether its reasoning is shown carries over
  if (thinking?.type === 'enabled' && thinking.budget_tokens !== undefined) warnings.push('thinking.budget_tokens dropped (not supported by this model)');
  else if (thinking?.type !== undefined && thinking.type !== 'disabled' && !THINKING_ON.has(String(thinking.type))) warnings.push('thinking dropped (not supported by this model)');
  if ((body.output_config as { effort?: unknown } | undefined)?.effort !== undefined) warnings.push('output_config.effort dropped (not supported by this model)');
  return { ir, warnings };
}

const THINKING_ON = new Set(['enabled', 'adaptive']);

/**
 * The request turns thinking on and wants it shown (not `display: "omitted"`): the answer then
 * starts with a thinking block holding the model's reasoning text, when the vendor shows any.
 */
export function showsThinking(body: Json): boolean {
  const thinking = body.thinking as { type?: unknown; display?: unknown } | undefined;
  return thinking !== undefined && THINKING_ON.has(String(thinking.type)) && thinking.display !== 'omitted';
}

function blocksOf(content: unknown): Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Block[]);
}

function textOf(content: unknown, param: string): string {
  if (content === undefined) return '';
  return blocksOf(content)
    .map((block, j) => {
      if (block.type !== 'text') throw invalidRequest(`Only text blocks are supported here for this model (got ${block.type}).`, `${param}[${j}].type`);
      return String(block.text ?? '');
    })
    .join('');
}

function convertMessage(message: Json, i: number): IrMessage[] {
  const param = `messages[${i}].content`;
  if (message.role === 'system') return [{ role: 'system', content: textOf(message.content, param) }];
  if (message.role === 'assistant') return [assistantMessage(blocksOf(message.content), param)];
  const tools: IrMessage[] = [];
  const parts: IrUserPart[] = [];
  blocksOf(message.content).forEach((block, j) => {
    if (block.type === 'tool_result') {
      const result = toolResult(block, `${param}[${j}]`);
      tools.push(result.message);
      parts.push(...result.images);
    } else {
      parts.push(userPart(block, `${param}[${j}]`));
    }
  });
  return parts.length > 0 ? [...tools, { role: 'user', content: parts }] : tools;
}

function assistantMessage(blocks: Block[], param: string): IrMessage {
  let text = '';
  const calls: IrToolCall[] = [];
  blocks.forEach((block, j) => {
    switch (block.type) {
      case 'text':
        text += String(block.text ?? '');
        break;
      case 'tool_use':
        calls.push({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } });
        break;
      case 'thinking':
      case 'redacted_thinking':
        // the model's own earlier reasoning (signed by Anthropic, or unsigned from another family through the gateway): meaningless to another vendor
        break;
      default:
        throw invalidRequest(`Assistant blocks of type "${block.type}" are not supported for this model.`, `${param}[${j}].type`);
    }
  });
  return { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, ...(calls.length > 0 && { tool_calls: calls }) };
}

/** A tool result's text goes in a tool message; its images follow in the user turn (tool messages carry text only). */
function toolResult(block: Block, param: string): { message: IrMessage; images: IrUserPart[] } {
  const images: IrUserPart[] = [];
  let text = '';
  const content = block.content === undefined ? [] : blocksOf(block.content);
  content.forEach((inner, k) => {
    if (inner.type === 'text') text += String(inner.text ?? '');
    else if (inner.type === 'image') images.push(userPart(inner, `${param}.content[${k}]`));
    else throw invalidRequest(`tool_result blocks of type "${inner.type}" are not supported for this model.`, `${param}.content[${k}].type`);
  });
  if (block.is_error === true) text = `Error: ${text}`;
  return { message: { role: 'tool', tool_call_id: String(block.tool_use_id), content: text }, images };
}

function userPart(block: Block, param: string): IrUserPart {
  const source = (block.source ?? {}) as Json;
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text ?? '') };
    case 'image':
      if (source.type === 'base64') return { type: 'image_url', image_url: { url: `data:${String(source.media_type)};base64,${String(source.data)}` } };
      if (source.type === 'url') return { type: 'image_url', image_url: { url: String(source.url) } };
      throw invalidRequest('Images must be sent as base64 or url sources for this model.', `${param}.source.type`);
    case 'document':
      if (source.type === 'base64') return { type: 'file', file: { file_data: `data:${String(source.media_type)};base64,${String(source.data)}`, filename: String(block.title ?? 'document.pdf') } };
      if (source.type === 'text') return { type: 'text', text: String(source.data ?? '') };
      throw invalidRequest('Documents must be sent as base64 or text sources for this model.', `${param}.source.type`);
    default:
      throw invalidRequest(`Content blocks of type "${block.type}" are not supported for this model.`, `${param}.type`);
  }
}

function convertTool(tool: Json, i: number): IrFunctionTool {
  if (tool.type !== undefined && tool.type !== 'custom') throw invalidRequest(`Server tools (${String(tool.type)}) are not supported for this model.`, `tools[${i}].type`);
  return {
    type: 'function',
    function: {
      name: String(tool.name),
      ...(typeof tool.description === 'string' && { description: tool.description }),
      parameters: (tool.input_schema as Json | undefined) ?? { type: 'object', properties: {} },
      ...(tool.strict === true && { strict: true }),
    },
  };
}

function convertToolChoice(choice: Json): IrToolChoice {
  switch (choice.type) {
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: String(choice.name) } };
    default:
      return 'auto';
  }
}
