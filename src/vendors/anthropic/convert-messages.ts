import { invalidRequest } from '../../core/errors.ts';
import type { IrAssistantMessage, IrMessage, IrTextPart, IrUserPart } from '../../core/ir/chat.ts';
import { parseDataUrl } from '../_kit/data-url.ts';
import type { JsonObject } from '../_kit/read.ts';
import { ToolCallIdReader } from '../_kit/tool-call-id.ts';
import { unpackThinking, type ThinkingBlock } from './thinking-state.ts';

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: JsonObject[];
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * IR messages → Anthropic `system` + `messages` (protocols.md §4.1): system and developer
 * messages are hoisted into `system`; tool messages become `tool_result` blocks of one user turn,
 * ahead of any text; consecutive turns of one role are merged; tool-call ids are unpacked (and
 * the thinking blocks they carried restored in front of the assistant turn).
 */
export function convertMessages(messages: readonly IrMessage[]): { system: string | undefined; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  // one budget for the state this request's ids restore
  const ids = new ToolCallIdReader();
  const push = (role: AnthropicMessage['role'], blocks: JsonObject[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role !== role) {
      out.push({ role, content: blocks });
      return;
    }
    last.content.push(...blocks);
    // a user turn must open with its tool results
    if (role === 'user') last.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  };
  messages.forEach((message, i) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content));
        break;
      case 'user':
        push('user', typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content.map((part, j) => userBlock(part, `messages[${i}].content[${j}]`)));
        break;
      case 'assistant':
        push('assistant', assistantBlocks(message, i, ids));
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: ids.idOf(message.tool_call_id), content: textOf(message.content) }]);
        break;
      case 'function':
        throw invalidRequest('The deprecated "function" role is not supported for this model; send tool results as role "tool".', `messages[${i}].role`);
      default: {
        const unknown: never = message;
        throw invalidRequest(`messages[${i}] has an unknown role.`, `messages[${i}].role`, String(unknown));
      }
    }
  });
  if (out.length === 0) throw invalidRequest('messages must contain at least one user or assistant message for this model.', 'messages');
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}

function textOf(content: string | readonly IrTextPart[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function userBlock(part: IrUserPart, param: string): JsonObject {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return imageBlock(part.image_url.url, `${param}.image_url.url`);
    case 'file':
      return documentBlock(part.file, param);
    case 'input_audio':
      throw invalidRequest('Audio input is not supported by this model.', param);
    default:
      throw invalidRequest(`Content parts of type "${(part as { type: string }).type}" are not supported by this model.`, `${param}.type`);
  }
}

function imageBlock(url: string, param: string): JsonObject {
  const data = parseDataUrl(url);
  if (data) {
    if (!IMAGE_TYPES.has(data.mediaType)) throw invalidRequest(`Images must be JPEG, PNG, GIF or WebP for this model (got ${data.mediaType}).`, param);
    return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalidRequest('An image URL must be an http(s) URL or a base64 data URL.', param);
}

function documentBlock(file: { file_data?: string; file_id?: string; filename?: string }, param: string): JsonObject {
  if (file.file_data === undefined) throw invalidRequest('Uploaded file ids are not portable to this model; send the file as file_data.', `${param}.file.file_id`);
  const parsed = parseDataUrl(file.file_data) ?? { mediaType: 'application/pdf', data: file.file_data };
  if (parsed.mediaType === 'application/pdf') {
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: parsed.data }, ...(file.filename && { title: file.filename }) };
  }
  if (parsed.mediaType === 'text/plain') {
    const text = Buffer.from(parsed.data, 'base64').toString('utf8');
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...(file.filename && { title: file.filename }) };
  }
  throw invalidRequest(`Files must be PDF or plain text for this model (got ${parsed.mediaType}).`, `${param}.file.file_data`);
}

function assistantBlocks(message: IrAssistantMessage, i: number, ids: ToolCallIdReader): JsonObject[] {
  const thinking: ThinkingBlock[] = [];
  const uses: JsonObject[] = [];
  (message.tool_calls ?? []).forEach((call, j) => {
    const { id, blocks } = unpackThinking(call.id, ids);
    thinking.push(...blocks);
    uses.push({ type: 'tool_use', id, name: call.function.name, input: parseArguments(call.function.arguments, `messages[${i}].tool_calls[${j}].function.arguments`) });
  });
  const texts: JsonObject[] = [];
  const addText = (text: string | null | undefined) => {
    // the vendor refuses empty text blocks
    if (text && text.trim() !== '') texts.push({ type: 'text', text });
  };
  if (typeof message.content === 'string') addText(message.content);
  else for (const part of message.content ?? []) addText(part.type === 'text' ? part.text : part.refusal);
  if (texts.length === 0) addText(message.refusal);
  return [...thinking, ...texts, ...uses];
}

function parseArguments(text: string, param: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text === '' ? '{}' : text);
  } catch {
    throw invalidRequest('Tool-call arguments must be valid JSON for this model.', param);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidRequest('Tool-call arguments must be a JSON object for this model.', param);
  return value as JsonObject;
}
