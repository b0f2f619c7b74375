import { invalidRequest } from '../../core/errors.ts';
import type { IrChatRequest, IrTool, IrToolChoice } from '../../core/ir/chat.ts';
import type { ChatCall } from '../../core/contracts/vendor-codec.ts';
import type { JsonObject } from '../_kit/read.ts';
import { convertContents } from './convert-contents.ts';

/** `reasoning_effort` → Gemini 2.5 thinking budgets (tokens; 0 = off, where the model allows it). */
const THINKING_BUDGET: Record<string, number> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24_576, xhigh: 32_768, max: 32_768 };
/** `reasoning_effort` → Gemini 3 thinking levels. */
const THINKING_LEVEL: Record<string, string> = { none: 'MINIMAL', minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH', max: 'HIGH' };

/**
 * IR chat request → Gemini `generateContent` body (protocols.md §5.8). Settings the vendor cannot
 * honour are refused (a 400 naming the field) when dropping them would change what the client
 * gets back, and dropped with a warning otherwise; README.md lists every decision.
 */
export function convertRequest(call: ChatCall, upstreamModel: string): { body: JsonObject; warnings: string[] } {
  const ir = call.body;
  const warnings: string[] = [];
  refuseUnsupported(ir);
  const { system, contents } = convertContents(ir.messages);
  const body: JsonObject = { contents };
  if (system !== undefined) body.systemInstruction = { parts: [{ text: system }] };

  const functions = (ir.tools ?? []).map(convertTool);
  if (functions.length > 0) body.tools = [{ functionDeclarations: functions }];
  const toolConfig = convertToolChoice(ir.tool_choice);
  if (toolConfig) body.toolConfig = { functionCallingConfig: toolConfig };
  if (ir.parallel_tool_calls === false && functions.length > 0) warnings.push('parallel_tool_calls dropped (the vendor has no such switch)');

  const generation: JsonObject = {};
  if (ir.temperature != null) generation.temperature = ir.temperature;
  if (ir.top_p != null) generation.topP = ir.top_p;
  // with no cap of the client's, the one the gateway reserved for: the vendor cannot bill past the hold
  generation.maxOutputTokens = ir.max_completion_tokens ?? ir.max_tokens ?? call.maxOutputTokens;
  if (ir.stop != null) generation.stopSequences = typeof ir.stop === 'string' ? [ir.stop] : ir.stop;
  if (ir.n != null && ir.n > 1) generation.candidateCount = ir.n;
  if (ir.seed != null) generation.seed = ir.seed;
  if (ir.presence_penalty != null) generation.presencePenalty = ir.presence_penalty;
  if (ir.frequency_penalty != null) generation.frequencyPenalty = ir.frequency_penalty;
  const format = ir.response_format;
  if (format?.type === 'json_object') generation.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    generation.responseMimeType = 'application/json';
    if (format.json_schema.schema) generation.responseJsonSchema = format.json_schema.schema;
  }
  // the specification's `modality: "image"` (only models that can draw get this far): the vendor
  // answers with text and `inlineData` image parts; `modality` itself never goes upstream
  if (ir.modality === 'image') generation.responseModalities = ['TEXT', 'IMAGE'];
  const thinking = thinkingConfig(ir.reasoning_effort, upstreamModel);
  // the vendor shows its thought summaries only when asked; `include_reasoning` never goes upstream itself
  if (ir.include_reasoning === true) generation.thinkingConfig = { ...thinking, includeThoughts: true };
  else if (thinking) generation.thinkingConfig = thinking;
  if (Object.keys(generation).length > 0) body.generationConfig = generation;

  for (const [field, dropped] of [
    ['logit_bias', ir.logit_bias != null],
    ['prediction', ir.prediction != null],
    ['verbosity', ir.verbosity != null],
  ] as const) {
    if (dropped) warnings.push(`${field} dropped (not supported by this model)`);
  }
  return { body, warnings };
}

function refuseUnsupported(ir: IrChatRequest): void {
  if (ir.logprobs === true) throw invalidRequest('logprobs are not supported for this model.', 'logprobs');
  if (ir.top_logprobs != null) throw invalidRequest('top_logprobs are not supported for this model.', 'top_logprobs');
  if (ir.audio != null || (Array.isArray(ir.modalities) && ir.modalities.includes('audio'))) {
    throw invalidRequest('Audio output is not supported through chat completions for this model.', 'modalities');
  }
  if (ir.functions != null || ir.function_call != null) throw invalidRequest('The deprecated functions parameter is not supported for this model; use tools.', 'functions');
  if (ir.web_search_options != null) throw invalidRequest('web_search_options is not supported for this model.', 'web_search_options');
}

function convertTool(tool: IrTool, i: number): JsonObject {
  if (tool.type !== 'function' || !('function' in tool)) throw invalidRequest(`Tools of type "${tool.type}" are not supported by this model; use function tools.`, `tools[${i}].type`);
  const fn = (tool as Extract<IrTool, { type: 'function' }>).function;
  return {
    name: fn.name,
    ...(fn.description !== undefined && { description: fn.description }),
    ...(fn.parameters !== undefined && { parametersJsonSchema: fn.parameters }),
  };
}

function convertToolChoice(choice: IrToolChoice | undefined): JsonObject | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  if (typeof choice === 'object' && choice.type === 'function' && typeof (choice.function as { name?: unknown } | undefined)?.name === 'string') {
    return { mode: 'ANY', allowedFunctionNames: [(choice.function as { name: string }).name] };
  }
  throw invalidRequest('This tool_choice is not supported by this model; use "auto", "none", "required" or a named function.', 'tool_choice');
}

/** Gemini 3 takes a thinking level; 2.x models a token budget. */
function thinkingConfig(effort: string | null | undefined, model: string): JsonObject | undefined {
  if (effort == null) return undefined;
  if (!(effort in THINKING_LEVEL)) throw invalidRequest(`reasoning_effort "${effort}" is not supported by this model.`, 'reasoning_effort');
  return /^gemini-[12]\./.test(model) ? { thinkingBudget: THINKING_BUDGET[effort] } : { thinkingLevel: THINKING_LEVEL[effort] };
}
