// Reads a generateContent body (protocols.md §5.1) into the facts the simulator needs and checks
// what the vendor checks, with its wording: contents present, function responses right after
// function calls, (Gemini 3) the thought signature on the current turn's function calls, and
// response modalities the model has (only image models draw).
import { isRecord } from '../_kit/http.ts';
import { countTokens } from '../_kit/text.ts';
import type { FunctionTool, ToolChoice } from '../_kit/tools.ts';
import { invalidArgument, type SimulatedError } from './errors.ts';
import { signCall, signsCalls } from './signature.ts';

export interface GenerateRequest {
  model: string;
  candidateCount: number;
  maxTokens: number | undefined;
  stop: string[];
  tools: FunctionTool[];
  toolChoice: ToolChoice;
  thinking: boolean;
  /** `thinkingConfig.includeThoughts`: the answer shows a thought summary (a `thought: true` text part) */
  includeThoughts: boolean;
  lastUserText: string;
  answersTools: boolean;
  promptTokens: number;
  /** `responseModalities` includes IMAGE (and the model can draw): each candidate carries an image */
  imageOutput: boolean;
}

const MEDIA_TOKENS = 258;
const MODALITIES = new Set(['TEXT', 'IMAGE', 'AUDIO']);

/** The vendor's image-output chat models are named so (gemini-2.5-flash-image, gemini-3-pro-image-preview…). */
function drawsImages(model: string): boolean {
  return /-image(-|$)/.test(model);
}

export function readGenerateRequest(body: unknown, model: string): GenerateRequest | SimulatedError {
  if (!isRecord(body)) return invalidArgument('Invalid JSON payload received.');
  if (!Array.isArray(body.contents) || body.contents.length === 0) return invalidArgument('* GenerateContentRequest.contents: contents is not specified');
  const generation = isRecord(body.generationConfig) ? body.generationConfig : {};
  const temperature = generation.temperature;
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 2)) {
    return invalidArgument('* GenerateContentRequest.generation_config.temperature: must be between 0 and 2');
  }
  let promptTokens = 0;
  let lastUserText = '';
  let answersTools = false;
  let calledNames: string[] = [];
  let currentTurnStart = 0;
  for (const [i, content] of body.contents.entries()) {
    if (!isRecord(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
      return invalidArgument(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`);
    }
    const role = content.role ?? 'user';
    if (role !== 'user' && role !== 'model') return invalidArgument(`Please use a valid role: user, model.`);
    const parts = content.parts.filter(isRecord);
    const responses = parts.filter((p) => isRecord(p.functionResponse)).map((p) => String((p.functionResponse as Record<string, unknown>).name));
    if (responses.some((name) => !calledNames.includes(name))) {
      return invalidArgument('Please ensure that function response turn comes immediately after a function call turn.');
    }
    calledNames = role === 'model' ? parts.filter((p) => isRecord(p.functionCall)).map((p) => String((p.functionCall as Record<string, unknown>).name)) : [];
    if (role === 'user') {
      lastUserText = parts.map((p) => (typeof p.text === 'string' ? p.text : isRecord(p.functionResponse) ? JSON.stringify(p.functionResponse.response) : '')).join(' ');
      answersTools = responses.length > 0;
      if (!answersTools) currentTurnStart = i;
    }
    for (const part of parts) {
      if (typeof part.text === 'string') promptTokens += countTokens(part.text);
      else if (part.inlineData || part.fileData) promptTokens += MEDIA_TOKENS;
      else promptTokens += countTokens(JSON.stringify(part));
    }
  }
  if (signsCalls(model)) {
    const missing = checkSignatures(body.contents.slice(currentTurnStart), currentTurnStart);
    if (missing) return missing;
  }
  const system = isRecord(body.systemInstruction) && Array.isArray(body.systemInstruction.parts) ? body.systemInstruction.parts : [];
  for (const part of system) if (isRecord(part) && typeof part.text === 'string') promptTokens += countTokens(part.text);
  const tools = readTools(body.tools);
  if (tools.length > 0) promptTokens += countTokens(JSON.stringify(body.tools));
  const modalities = readModalities(generation.responseModalities, model);
  if (!Array.isArray(modalities)) return modalities;
  const candidateCount = typeof generation.candidateCount === 'number' ? generation.candidateCount : 1;
  return {
    model,
    candidateCount,
    maxTokens: typeof generation.maxOutputTokens === 'number' ? generation.maxOutputTokens : undefined,
    stop: Array.isArray(generation.stopSequences) ? generation.stopSequences.filter((s): s is string => typeof s === 'string') : [],
    tools,
    toolChoice: readToolChoice(body.toolConfig, tools),
    thinking: isRecord(generation.thinkingConfig),
    includeThoughts: isRecord(generation.thinkingConfig) && generation.thinkingConfig.includeThoughts === true,
    lastUserText,
    answersTools,
    promptTokens,
    imageOutput: modalities.includes('IMAGE'),
  };
}

/** `responseModalities`, refused like the vendor does when the model cannot answer in one of them. */
function readModalities(value: unknown, model: string): string[] | SimulatedError {
  if (value === undefined) return ['TEXT'];
  if (!Array.isArray(value)) return invalidArgument(`Invalid value at 'generation_config.response_modalities' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig.Modality), ${JSON.stringify(value)}`);
  const names: string[] = [];
  for (const [i, item] of value.entries()) {
    const name = typeof item === 'string' ? item.toUpperCase() : '';
    if (!MODALITIES.has(name)) {
      return invalidArgument(`Invalid value at 'generation_config.response_modalities[${i}]' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig.Modality), ${JSON.stringify(item)}`);
    }
    names.push(name);
  }
  const supported = drawsImages(model) ? ['TEXT', 'IMAGE'] : ['TEXT'];
  const unsupported = names.filter((name) => !supported.includes(name));
  if (unsupported.length > 0) return invalidArgument(`Model does not support the requested response modalities: ${unsupported.map((n) => n.toLowerCase()).join(',')}`);
  return names;
}

const DUMMY_SIGNATURES = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

function checkSignatures(contents: unknown[], offset: number): SimulatedError | undefined {
  for (const [k, content] of contents.entries()) {
    if (!isRecord(content) || content.role !== 'model' || !Array.isArray(content.parts)) continue;
    const position = content.parts.findIndex((p) => isRecord(p) && isRecord(p.functionCall));
    if (position < 0) continue;
    const part = content.parts[position] as Record<string, unknown>;
    const call = part.functionCall as Record<string, unknown>;
    // the two stand-in values Google documents for calls another model made are accepted unchecked
    if (DUMMY_SIGNATURES.has(String(part.thoughtSignature))) continue;
    if (part.thoughtSignature !== signCall(String(call.name), call.args ?? {})) {
      return invalidArgument(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(call.name)}\` , position ${offset + k + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
  }
  return undefined;
}

function readTools(value: unknown): FunctionTool[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((tool) =>
    isRecord(tool) && Array.isArray(tool.functionDeclarations)
      ? tool.functionDeclarations.filter(isRecord).map((fn) => ({ name: String(fn.name), parameters: fn.parametersJsonSchema ?? fn.parameters }))
      : [],
  );
}

function readToolChoice(value: unknown, tools: readonly FunctionTool[]): ToolChoice {
  const config = isRecord(value) && isRecord(value.functionCallingConfig) ? value.functionCallingConfig : {};
  const allowed = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames.map(String) : undefined;
  switch (config.mode) {
    case 'NONE':
      return { mode: 'none' };
    case 'ANY':
      return allowed?.length === 1 ? { mode: 'named', name: allowed[0]! } : { mode: 'required', ...(allowed && { allowed }) };
    default:
      return { mode: tools.length > 0 ? 'auto' : 'none' };
  }
}
