import { invalidRequest } from '../../core/errors.ts';
import type { IrChatRequest, IrFunctionTool, IrMessage, IrToolCall, IrToolChoice, IrUserPart } from '../../core/ir/chat.ts';

type Json = Record<string, unknown>;

const AUDIO_FORMATS: Readonly<Record<string, string>> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mp3': 'mp3', 'audio/mpeg': 'mp3' };
const THINKING_LEVELS = new Set(['minimal', 'low', 'medium', 'high']);

/**
 * A Gemini `generateContent` body → the IR (protocols.md §5.8 read backwards). Model turns'
 * `functionCall` parts become tool calls (the id the gateway gave them kept: a thought signature
 * rides in it), `functionResponse` parts tool messages answering the call they name (by id, else
 * the earliest unanswered call of that name); thought parts are dropped. Settings the IR cannot
 * carry are dropped with a warning (`topK`, `safetySettings`…), as README.md lists.
 */
export function convertRequest(body: Json, model: string): { ir: IrChatRequest; warnings: string[] } {
  const warnings: string[] = [];
  const messages: IrMessage[] = [];
  const system = systemText(body.systemInstruction);
  if (system !== '') messages.push({ role: 'system', content: system });
  const pending: IrToolCall[] = [];
  (body.contents as Json[]).forEach((content, i) => messages.push(...convertContent(content, i, pending)));

  const ir: IrChatRequest = { model, messages };
  const tools = convertTools(body.tools);
  if (tools.length > 0) ir.tools = tools;
  const choice = convertToolConfig(body.toolConfig);
  if (choice !== undefined) ir.tool_choice = choice;
  generation(asObject(body.generationConfig, 'generationConfig') ?? {}, ir, warnings);
  if (Array.isArray(body.safetySettings) && body.safetySettings.length > 0) warnings.push('safetySettings dropped (not supported by this model)');
  if (body.cachedContent !== undefined) throw invalidRequest('cachedContent is not supported through this gateway.', 'cachedContent');
  return { ir, warnings };
}

function asObject(value: unknown, param: string): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidRequest(`${param} must be an object.`, param);
  return value as Json;
}

function systemText(system: unknown): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  return ((system as Json).parts as Json[]).map((part, j) => {
    if (typeof part.text !== 'string') throw invalidRequest('systemInstruction takes text parts only.', `systemInstruction.parts[${j}]`);
    return part.text;
  }).join('\n');
}

function convertContent(content: Json, i: number, pending: IrToolCall[]): IrMessage[] {
  const role = content.role ?? 'user';
  const parts = content.parts as Json[];
  const param = `contents[${i}].parts`;
  if (role === 'model') return [modelTurn(parts, i, pending)];
  if (role !== 'user' && role !== 'function') throw invalidRequest(`contents[${i}].role must be "user" or "model".`, `contents[${i}].role`);
  const user: IrUserPart[] = [];
  const responses: Array<{ response: Json; param: string; call?: IrToolCall }> = [];
  parts.forEach((part, j) => {
    const response = part.functionResponse as Json | undefined;
    if (response) responses.push({ response, param: `${param}[${j}].functionResponse` });
    else if (part.thought !== true) user.push(userPart(part, `${param}[${j}]`));
  });
  // responses naming their call's id take it first; the others the earliest unanswered call of their name
  for (const entry of responses) if (typeof entry.response.id === 'string') entry.call = take(pending, (call) => call.id === entry.response.id);
  for (const entry of responses) {
    entry.call ??= take(pending, (call) => call.function.name === entry.response.name);
    if (!entry.call) throw invalidRequest(`functionResponse "${String(entry.response.name)}" answers no functionCall of an earlier model turn.`, `${entry.param}.name`);
  }
  const results: IrMessage[] = responses.map(({ response, call }) => ({ role: 'tool', tool_call_id: call!.id, content: resultText(response.response) }));
  return user.length > 0 ? [...results, { role: 'user', content: user }] : results;
}

function take(pending: IrToolCall[], match: (call: IrToolCall) => boolean): IrToolCall | undefined {
  const at = pending.findIndex(match);
  return at < 0 ? undefined : pending.splice(at, 1)[0];
}

function modelTurn(parts: Json[], i: number, pending: IrToolCall[]): IrMessage {
  const param = `contents[${i}].parts`;
  let text = '';
  const calls: IrToolCall[] = [];
  parts.forEach((part, j) => {
    if (part.thought === true) return;
    if (typeof part.text === 'string') text += part.text;
    const call = part.functionCall as Json | undefined;
    if (call) {
      if (typeof call.name !== 'string') throw invalidRequest('functionCall.name is required.', `${param}[${j}].functionCall.name`);
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : `call_g${i}_${j}`;
      const made: IrToolCall = { id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
      calls.push(made);
      pending.push(made);
    }
  });
  return { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, ...(calls.length > 0 && { tool_calls: calls }) };
}

/** `{output: "…"}` / `{result: "…"}` (the forms Google documents) as their text; any other object as JSON. */
function resultText(response: unknown): string {
  if (typeof response === 'string') return response;
  const keys = response && typeof response === 'object' ? Object.keys(response) : [];
  if (keys.length === 1 && (keys[0] === 'output' || keys[0] === 'result')) {
    const value = (response as Json)[keys[0]!];
    if (typeof value === 'string') return value;
  }
  return JSON.stringify(response ?? {});
}

function userPart(part: Json, param: string): IrUserPart {
  if (typeof part.text === 'string') return { type: 'text', text: part.text };
  const inline = part.inlineData as { mimeType?: unknown; data?: unknown } | undefined;
  if (inline) {
    const mimeType = String(inline.mimeType ?? '');
    const data = String(inline.data ?? '');
    if (mimeType.startsWith('image/')) return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
    const audio = AUDIO_FORMATS[mimeType];
    if (audio) return { type: 'input_audio', input_audio: { data, format: audio } };
    return { type: 'file', file: { file_data: `data:${mimeType};base64,${data}`, filename: mimeType === 'application/pdf' ? 'document.pdf' : 'file' } };
  }
  const file = part.fileData as { mimeType?: unknown; fileUri?: unknown } | undefined;
  if (file && typeof file.fileUri === 'string') {
    if (!/^https?:\/\//i.test(file.fileUri)) throw invalidRequest('fileData.fileUri must be an http(s) URL here (Files API uploads are not portable across vendors).', `${param}.fileData.fileUri`);
    return { type: 'image_url', image_url: { url: file.fileUri } };
  }
  throw invalidRequest(`This part (${Object.keys(part).join(', ') || 'empty'}) is not supported; send text, inlineData, fileData, functionCall or functionResponse.`, param);
}

function convertTools(tools: unknown): IrFunctionTool[] {
  if (!Array.isArray(tools)) return [];
  const out: IrFunctionTool[] = [];
  (tools as Json[]).forEach((tool, i) => {
    const other = Object.keys(tool).find((key) => key !== 'functionDeclarations');
    if (other) throw invalidRequest(`The tool "${other}" is not supported through this gateway; declare functions.`, `tools[${i}].${other}`);
    for (const fn of (tool.functionDeclarations ?? []) as Json[]) {
      const schema = (fn.parametersJsonSchema ?? fn.parameters) as Json | undefined;
      out.push({
        type: 'function',
        function: {
          name: String(fn.name),
          ...(typeof fn.description === 'string' && { description: fn.description }),
          parameters: schema ? (jsonSchema(schema) as Json) : { type: 'object', properties: {} },
        },
      });
    }
  });
  return out;
}

/** Google's OpenAPI subset (`type: "OBJECT"`, `nullable`) → JSON Schema, as the other vendors read it. */
function jsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'nullable' || key === 'propertyOrdering') continue;
    else if (key === 'properties' && value && typeof value === 'object') out.properties = Object.fromEntries(Object.entries(value as Json).map(([name, inner]) => [name, jsonSchema(inner)]));
    else out[key] = typeof value === 'object' ? jsonSchema(value) : value;
  }
  if ((schema as Json).nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function convertToolConfig(config: unknown): IrToolChoice | undefined {
  const calling = (config as { functionCallingConfig?: { mode?: unknown; allowedFunctionNames?: unknown } } | undefined)?.functionCallingConfig;
  if (!calling) return undefined;
  const names = Array.isArray(calling.allowedFunctionNames) ? (calling.allowedFunctionNames as string[]) : [];
  switch (calling.mode) {
    case 'NONE':
      return 'none';
    case 'ANY':
      return names.length === 1 ? { type: 'function', function: { name: names[0]! } } : 'required';
    case 'AUTO':
    case 'VALIDATED':
    case 'MODE_UNSPECIFIED':
    case undefined:
      return 'auto';
    default:
      throw invalidRequest('toolConfig.functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED.', 'toolConfig.functionCallingConfig.mode');
  }
}

function generation(config: Json, ir: IrChatRequest, warnings: string[]): void {
  const num = (key: string): number | undefined => {
    const value = config[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number') throw invalidRequest(`generationConfig.${key} must be a number.`, `generationConfig.${key}`);
    return value;
  };
  const temperature = num('temperature');
  if (temperature !== undefined) ir.temperature = temperature;
  const topP = num('topP');
  if (topP !== undefined) ir.top_p = topP;
  const max = num('maxOutputTokens');
  if (max !== undefined) ir.max_completion_tokens = max;
  const n = num('candidateCount');
  if (n !== undefined) ir.n = n;
  const seed = num('seed');
  if (seed !== undefined) ir.seed = seed;
  const presence = num('presencePenalty');
  if (presence !== undefined) ir.presence_penalty = presence;
  const frequency = num('frequencyPenalty');
  if (frequency !== undefined) ir.frequency_penalty = frequency;
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 0) ir.stop = config.stopSequences as string[];
  if (config.topK !== undefined) warnings.push('generationConfig.topK dropped (not supported by this model)');

  const mime = config.responseMimeType;
  const schema = (config.responseJsonSchema ?? config.responseSchema) as Json | undefined;
  if (schema !== undefined) ir.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: jsonSchema(schema) as Json } };
  else if (mime === 'application/json') ir.response_format = { type: 'json_object' };
  else if (mime !== undefined && mime !== 'text/plain') throw invalidRequest('generationConfig.responseMimeType must be "text/plain" or "application/json".', 'generationConfig.responseMimeType');

  const thinking = asObject(config.thinkingConfig, 'generationConfig.thinkingConfig');
  const effort = thinking && effortOf(thinking);
  if (effort) ir.reasoning_effort = effort;
  // the client wants the thoughts shown (thought parts), whichever family answers
  if (thinking?.includeThoughts === true) ir.include_reasoning = true;
}

/** A thinking level as the effort; a budget by its size (0 off, -1 the model's own choice). */
function effortOf(thinking: Json): string | undefined {
  if (typeof thinking.thinkingLevel === 'string') {
    const level = thinking.thinkingLevel.toLowerCase();
    if (!THINKING_LEVELS.has(level)) throw invalidRequest('thinkingConfig.thinkingLevel must be MINIMAL, LOW, MEDIUM or HIGH.', 'generationConfig.thinkingConfig.thinkingLevel');
    return level;
  }
  const budget = thinking.thinkingBudget;
  if (typeof budget !== 'number' || budget < 0) return undefined;
  if (budget === 0) return 'none';
  return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}
