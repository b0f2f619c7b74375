import { invalidRequest } from '../../core/errors.ts';
import type { IrChatRequest, IrTool, IrToolChoice } from '../../core/ir/chat.ts';
import type { ChatCall } from '../../core/contracts/vendor-codec.ts';
import type { JsonObject } from '../_kit/read.ts';
import { convertMessages } from './convert-messages.ts';
import { isAdaptiveGeneration } from './model-rules.ts';

/** `reasoning_effort` → `output_config.effort` for adaptive-thinking models. */
const EFFORT: Record<string, string> = { minimal: 'low', low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'max' };
/** Thinking budgets for `reasoning_effort` (tokens); the vendor's minimum is 1024. */
const THINKING_BUDGET: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16_384, xhigh: 32_768, max: 65_536 };
const MIN_THINKING_BUDGET = 1024;
const JSON_OBJECT_INSTRUCTION = 'Respond with a single JSON object and nothing else.';

/**
 * IR chat request → Anthropic Messages request (protocols.md §4.1). Settings the vendor cannot
 * honour are refused (a 400 naming the field) when dropping them would change what the client
 * gets back, and dropped with a warning otherwise; README.md lists every decision.
 */
export function convertRequest(call: ChatCall, upstreamModel: string): { body: JsonObject; warnings: string[] } {
  const ir = call.body;
  const warnings: string[] = [];
  refuseUnsupported(ir);
  const { system, messages } = convertMessages(ir.messages);
  const body: JsonObject = { model: upstreamModel, max_tokens: call.maxOutputTokens, messages };
  let systemText = system;
  if (call.stream) body.stream = true;

  if (ir.stop != null) body.stop_sequences = typeof ir.stop === 'string' ? [ir.stop] : ir.stop;
  const fixedSampling = isAdaptiveGeneration(upstreamModel);
  if (ir.top_p != null) {
    if (fixedSampling && ir.top_p < 0.99) warnings.push('top_p dropped (this model samples with its defaults)');
    else body.top_p = ir.top_p;
  }
  if (ir.temperature != null) {
    if (fixedSampling && ir.temperature !== 1) warnings.push('temperature dropped (this model samples with its defaults)');
    else {
      body.temperature = Math.min(ir.temperature, 1);
      if (ir.temperature > 1) warnings.push('temperature clamped to 1 (the vendor range is 0-1)');
    }
  }
  const userId = ir.safety_identifier ?? ir.user;
  if (typeof userId === 'string') body.metadata = { user_id: userId };

  if (ir.tools && ir.tools.length > 0) body.tools = ir.tools.map(convertTool);
  const toolChoice = convertToolChoice(ir.tool_choice, ir.parallel_tool_calls === false && body.tools !== undefined);
  if (toolChoice) body.tool_choice = toolChoice;

  const format = ir.response_format;
  if (format?.type === 'json_schema') {
    body.output_config = { format: { type: 'json_schema', schema: format.json_schema.schema ?? { type: 'object' } } };
  } else if (format?.type === 'json_object') {
    systemText = systemText ? `${systemText}\n\n${JSON_OBJECT_INSTRUCTION}` : JSON_OBJECT_INSTRUCTION;
    warnings.push('response_format json_object emulated by a system instruction');
  }
  if (systemText !== undefined) body.system = systemText;

  if (fixedSampling) applyEffort(ir, body, warnings);
  else applyThinking(ir, body, call.maxOutputTokens, warnings);
  for (const [field, dropped] of [
    ['seed', ir.seed != null],
    ['logit_bias', ir.logit_bias != null],
    ['presence_penalty', !!ir.presence_penalty],
    ['frequency_penalty', !!ir.frequency_penalty],
    ['prediction', ir.prediction != null],
    ['verbosity', ir.verbosity != null],
  ] as const) {
    if (dropped) warnings.push(`${field} dropped (not supported by this model)`);
  }
  return { body, warnings };
}

function refuseUnsupported(ir: IrChatRequest): void {
  if (ir.n != null && ir.n > 1) throw invalidRequest('n > 1 is not supported by this model; send n separate requests.', 'n');
  if (ir.logprobs === true) throw invalidRequest('logprobs are not supported by this model.', 'logprobs');
  if (ir.top_logprobs != null) throw invalidRequest('top_logprobs are not supported by this model.', 'top_logprobs');
  if (ir.audio != null || (Array.isArray(ir.modalities) && ir.modalities.includes('audio'))) {
    throw invalidRequest('Audio output is not supported by this model.', 'modalities');
  }
  if (ir.modality === 'image') throw invalidRequest('Image output is not supported by this model.', 'modality');
  if (ir.functions != null || ir.function_call != null) throw invalidRequest('The deprecated functions parameter is not supported for this model; use tools.', 'functions');
  if (ir.web_search_options != null) throw invalidRequest('web_search_options is not supported by this model.', 'web_search_options');
}

function convertTool(tool: IrTool, i: number): JsonObject {
  if (tool.type !== 'function' || !('function' in tool)) throw invalidRequest(`Tools of type "${tool.type}" are not supported by this model; use function tools.`, `tools[${i}].type`);
  const fn = (tool as Extract<IrTool, { type: 'function' }>).function;
  return {
    name: fn.name,
    ...(fn.description !== undefined && { description: fn.description }),
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
    ...(fn.strict === true && { strict: true }),
  };
}

function convertToolChoice(choice: IrToolChoice | undefined, disableParallel: boolean): JsonObject | undefined {
  const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return disableParallel ? { type: 'auto', ...parallel } : undefined;
  if (choice === 'auto') return { type: 'auto', ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  if (choice === 'none') return { type: 'none' };
  if (typeof choice === 'object' && choice.type === 'function' && typeof (choice.function as { name?: unknown } | undefined)?.name === 'string') {
    return { type: 'tool', name: (choice.function as { name: string }).name, ...parallel };
  }
  throw invalidRequest('This tool_choice is not supported by this model; use "auto", "none", "required" or a named function.', 'tool_choice');
}

/** Adaptive-thinking models: `reasoning_effort` → `output_config.effort` (`none` → thinking off). */
function applyEffort(ir: IrChatRequest, body: JsonObject, warnings: string[]): void {
  const effort = ir.reasoning_effort;
  if (effort == null) return;
  if (effort === 'none') {
    body.thinking = { type: 'disabled' };
    return;
  }
  const level = EFFORT[effort];
  if (level === undefined) throw invalidRequest(`reasoning_effort "${effort}" is not supported by this model.`, 'reasoning_effort');
  if (forcesTool(body)) {
    warnings.push('reasoning_effort dropped (thinking cannot be combined with a forced tool_choice)');
    return;
  }
  body.thinking = { type: 'adaptive' };
  body.output_config = { ...(body.output_config as JsonObject | undefined), effort: level };
}

/**
 * Older models: `reasoning_effort` → extended thinking with a budget below `max_tokens`. Thinking forbids a
 * forced tool choice and sampling changes; when those are set, the weaker side is dropped.
 */
function applyThinking(ir: IrChatRequest, body: JsonObject, maxTokens: number, warnings: string[]): void {
  const effort = ir.reasoning_effort;
  if (effort == null || effort === 'none') return;
  const wanted = THINKING_BUDGET[effort];
  if (wanted === undefined) throw invalidRequest(`reasoning_effort "${effort}" is not supported by this model.`, 'reasoning_effort');
  if (forcesTool(body)) {
    warnings.push('reasoning_effort dropped (thinking cannot be combined with a forced tool_choice)');
    return;
  }
  if (maxTokens <= MIN_THINKING_BUDGET) {
    warnings.push(`reasoning_effort dropped (max_tokens must exceed ${MIN_THINKING_BUDGET} for thinking)`);
    return;
  }
  body.thinking = { type: 'enabled', budget_tokens: Math.min(wanted, maxTokens - 1) };
  if (body.temperature !== undefined && body.temperature !== 1) {
    delete body.temperature;
    warnings.push('temperature dropped (fixed at 1 while thinking)');
  }
  if (typeof body.top_p === 'number' && body.top_p < 0.95) {
    delete body.top_p;
    warnings.push('top_p dropped (must be at least 0.95 while thinking)');
  }
}

function forcesTool(body: JsonObject): boolean {
  const type = (body.tool_choice as { type?: string } | undefined)?.type;
  return type === 'any' || type === 'tool';
}
