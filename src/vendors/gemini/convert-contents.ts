import { invalidRequest } from '../../core/errors.ts';
import type { IrAssistantMessage, IrMessage, IrTextPart, IrUserPart } from '../../core/ir/chat.ts';
import { mediaTypeOfUrl, parseDataUrl } from '../_kit/data-url.ts';
import type { JsonObject } from '../_kit/read.ts';
import { ToolCallIdReader } from '../_kit/tool-call-id.ts';
import { readToolCallId, readVendorId } from './signature-state.ts';

export interface Content {
  role: 'user' | 'model';
  parts: JsonObject[];
}

const AUDIO_TYPES: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mp3' };

/**
 * IR messages → Gemini `systemInstruction` + `contents` (protocols.md §5.8). Tool results become
 * `functionResponse` parts of one user turn, named after the call they answer; function calls
 * get their thought signatures back; consecutive turns of one role are merged.
 */
export function convertContents(messages: readonly IrMessage[]): { system: string | undefined; contents: Content[] } {
  const system: string[] = [];
  const contents: Content[] = [];
  const callNames = new Map<string, string>();
  // one budget for the state this request's ids restore
  const ids = new ToolCallIdReader();
  const push = (role: Content['role'], parts: JsonObject[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((message, i) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content));
        break;
      case 'user':
        push('user', typeof message.content === 'string' ? [{ text: message.content }] : message.content.map((part, j) => userPart(part, `messages[${i}].content[${j}]`)));
        break;
      case 'assistant':
        push('model', modelParts(message, i, callNames, ids));
        break;
      case 'tool': {
        const name = callNames.get(message.tool_call_id);
        if (name === undefined) throw invalidRequest('tool_call_id does not match any tool call of an earlier assistant message.', `messages[${i}].tool_call_id`);
        const vendorId = readVendorId(message.tool_call_id, ids);
        push('user', [{ functionResponse: { name, response: { output: parseOutput(textOf(message.content)) }, ...(vendorId && { id: vendorId }) } }]);
        break;
      }
      case 'function':
        throw invalidRequest('The deprecated "function" role is not supported for this model; send tool results as role "tool".', `messages[${i}].role`);
      default: {
        const unknown: never = message;
        throw invalidRequest(`messages[${i}] has an unknown role.`, `messages[${i}].role`, String(unknown));
      }
    }
  });
  if (contents.length === 0) throw invalidRequest('messages must contain at least one user or assistant message for this model.', 'messages');
  return { system: system.length > 0 ? system.join('\n\n') : undefined, contents };
}

function textOf(content: string | readonly IrTextPart[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

/** A tool result that is JSON goes as JSON; anything else as a string. */
function parseOutput(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function userPart(part: IrUserPart, param: string): JsonObject {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url': {
      const url = part.image_url.url;
      const data = parseDataUrl(url);
      if (data) return { inlineData: { mimeType: data.mediaType, data: data.data } };
      // the vendor fetches public http(s) URLs itself; the gateway never does (no SSRF, no buffering)
      if (/^https?:\/\//i.test(url)) return { fileData: { mimeType: mediaTypeOfUrl(url) ?? 'image/jpeg', fileUri: url } };
      throw invalidRequest('An image URL must be an http(s) URL or a base64 data URL.', `${param}.image_url.url`);
    }
    case 'input_audio': {
      const mimeType = AUDIO_TYPES[part.input_audio.format];
      if (!mimeType) throw invalidRequest('input_audio.format must be "wav" or "mp3".', `${param}.input_audio.format`);
      return { inlineData: { mimeType, data: part.input_audio.data } };
    }
    case 'file': {
      if (part.file.file_data === undefined) throw invalidRequest('Uploaded file ids are not portable to this model; send the file as file_data.', `${param}.file.file_id`);
      const data = parseDataUrl(part.file.file_data) ?? { mediaType: 'application/pdf', data: part.file.file_data };
      return { inlineData: { mimeType: data.mediaType, data: data.data } };
    }
    default:
      throw invalidRequest(`Content parts of type "${(part as { type: string }).type}" are not supported by this model.`, `${param}.type`);
  }
}

function modelParts(message: IrAssistantMessage, i: number, callNames: Map<string, string>, ids: ToolCallIdReader): JsonObject[] {
  const parts: JsonObject[] = [];
  const text = typeof message.content === 'string' ? message.content : (message.content ?? []).map((p) => (p.type === 'text' ? p.text : p.refusal)).join('');
  if (text !== '') parts.push({ text });
  (message.tool_calls ?? []).forEach((call, j) => {
    callNames.set(call.id, call.function.name);
    const { vendorId, signature } = readToolCallId(call.id, ids);
    // the turn's first call carries the signature Gemini 3 checks; one it never signed gets the skip value
    const thoughtSignature = signature ?? (j === 0 ? UNSIGNED_CALL : undefined);
    parts.push({
      functionCall: { name: call.function.name, args: parseArguments(call.function.arguments, `messages[${i}].tool_calls[${j}].function.arguments`), ...(vendorId && { id: vendorId }) },
      ...(thoughtSignature && { thoughtSignature }),
    });
  });
  return parts;
}

/**
 * Google's documented stand-in signature for a function call Gemini did not make (another
 * family's call in a conversation moved to Gemini, a client that lost the id): Gemini 3 refuses
 * an unsigned call in the current turn, and accepts this value without validating it.
 */
const UNSIGNED_CALL = 'skip_thought_signature_validator';

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
