// POST /v1/responses: what the simulated model produces for a Responses request (reasoning for
// reasoning models, then text or function calls) and the `response` object that carries it, in
// the shape of the official SDK's `Response` type. Pure: the route does the I/O.
import { sampleArguments } from '../_kit/tools.ts';
import { newResponseId } from './endpoint.ts';
import type { ResponsesRequest, WireItem } from './responses-request.ts';
import { lastUserText } from './responses-request.ts';
import type { ScenarioPlan } from './scenarios.ts';
import { capOf, countTokens, finishText, snippet, textOfTokens, withFiller } from './text.ts';
import { chooseToolCalls } from './tool-calls.ts';

export interface GeneratedReasoning {
  id: string;
  /** summary parts (empty unless the request asked for a summary) */
  summary: string[];
}

export interface GeneratedCall {
  id: string;
  callId: string;
  name: string;
  arguments: string;
}

/** One reply: its output items in order and what they cost. */
export interface Generated {
  reasoning?: GeneratedReasoning;
  message?: { id: string; text: string };
  calls: GeneratedCall[];
  reasoningTokens: number;
  outputTokens: number;
  /** the output cap cut it (status "incomplete", reason max_output_tokens) */
  incomplete: boolean;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** What stays the same across the snapshots of one response (created, in progress, final). */
export interface ResponseMeta {
  id: string;
  createdAt: number;
  request: ResponsesRequest;
}

const REASONING_MODEL = /^(o\d|gpt-5|codex)/;
// Hidden reasoning tokens per effort (the summary is written out of these).
const REASONING_TOKENS: Readonly<Record<string, number>> = { minimal: 0, low: 32, medium: 64, high: 128, xhigh: 192 };

export function isReasoningModel(model: string): boolean {
  return REASONING_MODEL.test(model);
}

export function generate(request: ResponsesRequest, plan: ScenarioPlan, streamChunks: number): Generated {
  const userText = lastUserText(request.conversation);
  const cap = capOf(plan, request.maxOutputTokens);
  let reasoningTokens = 0;
  let reasoning: GeneratedReasoning | undefined;
  if (isReasoningModel(request.model)) {
    reasoningTokens = REASONING_TOKENS[request.reasoning.effort ?? 'medium'] ?? REASONING_TOKENS.medium!;
    const wantsSummary = request.reasoning.summary !== null && request.reasoning.summary !== 'none';
    reasoning = { id: newResponseId('rs_'), summary: wantsSummary ? [`**Reading the request**\n\nThe user wrote: "${snippet(userText, 40)}".`] : [] };
    if (cap !== undefined && reasoningTokens >= cap) {
      // The whole budget went on reasoning: no answer at all.
      return { reasoning, calls: [], reasoningTokens: cap, outputTokens: cap, incomplete: true };
    }
  }
  const last = request.conversation.at(-1);
  let text: string;
  if (plan.replyText !== undefined) {
    text = plan.replyText;
  } else if (request.format.type === 'json_schema') {
    text = JSON.stringify(sampleArguments(request.format.schema));
  } else if (request.format.type === 'json_object') {
    text = JSON.stringify({ echo: snippet(userText, 60) });
  } else if (last?.type === 'function_call_output') {
    // Closing the tool loop: answer in text and show that the tool result arrived.
    text = withFiller(`Tool result: ${typeof last.output === 'string' ? last.output : JSON.stringify(last.output)} |`, streamChunks);
  } else {
    const seed = `${userText}|${request.conversation.length}`;
    const calls = chooseToolCalls(request.tools, request.toolChoice, userText, request.parallelToolCalls, seed);
    if (calls.length > 0) {
      const tokens = calls.reduce((sum, call) => sum + countTokens(call.name) + countTokens(call.arguments), 0);
      const generated = calls.map((call) => ({ id: newResponseId('fc_'), callId: call.id, name: call.name, arguments: call.arguments }));
      return { ...(reasoning && { reasoning }), calls: generated, reasoningTokens, outputTokens: tokens + reasoningTokens, incomplete: false };
    }
    const opening = `Echo: ${snippet(userText, 60) || '(empty)'} |`;
    text = plan.longAnswerTokens === undefined ? withFiller(opening, streamChunks) : textOfTokens(opening, plan.longAnswerTokens);
  }
  const finished = finishText(text, [], cap === undefined ? undefined : cap - reasoningTokens);
  return {
    ...(reasoning && { reasoning }),
    message: { id: newResponseId('msg_'), text: finished.text },
    calls: [],
    reasoningTokens,
    outputTokens: finished.tokens + reasoningTokens,
    incomplete: finished.finishReason === 'length',
  };
}

export function responseUsage(request: ResponsesRequest, generated: Generated, plan: ScenarioPlan): ResponseUsage | null {
  if (plan.omitUsage) return null;
  const input = plan.usage?.promptTokens ?? request.promptTokens;
  const output = plan.usage?.completionTokens ?? generated.outputTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: plan.usage?.cachedTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: generated.reasoningTokens },
    total_tokens: input + output,
  };
}

/** The final status of a generated reply. */
export function finalStatus(generated: Generated): 'completed' | 'incomplete' {
  return generated.incomplete ? 'incomplete' : 'completed';
}

// --- output items, as the final response lists them (and output_item.done carries them) ---

export function reasoningItem(reasoning: GeneratedReasoning): WireItem {
  return { id: reasoning.id, type: 'reasoning', summary: reasoning.summary.map((text) => ({ type: 'summary_text', text })) };
}

export function outputText(text: string): Record<string, unknown> {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

export function messageItem(message: { id: string; text: string }, status: ResponseStatus, content = [outputText(message.text)]): WireItem {
  return { id: message.id, type: 'message', status, content, role: 'assistant' };
}

export function functionCallItem(call: GeneratedCall, status: ResponseStatus, args = call.arguments): WireItem {
  return { id: call.id, type: 'function_call', status, arguments: args, call_id: call.callId, name: call.name };
}

export function outputItems(generated: Generated): WireItem[] {
  const status = finalStatus(generated);
  return [
    ...(generated.reasoning ? [reasoningItem(generated.reasoning)] : []),
    ...(generated.message ? [messageItem(generated.message, status)] : []),
    ...generated.calls.map((call) => functionCallItem(call, 'completed')),
  ];
}

/** A snapshot of the `response` object (the in-progress ones have no output and no usage yet). */
export function responseBody(
  meta: ResponseMeta,
  status: ResponseStatus,
  output: readonly WireItem[],
  usage: ResponseUsage | null,
  error: { code: string; message: string } | null = null,
): Record<string, unknown> {
  const { request } = meta;
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status,
    background: false,
    error,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions,
    max_output_tokens: request.maxOutputTokens ?? null,
    max_tool_calls: null,
    model: request.model,
    output,
    parallel_tool_calls: request.parallelToolCalls,
    previous_response_id: request.previousResponseId,
    prompt_cache_key: null,
    reasoning: request.reasoning,
    safety_identifier: null,
    service_tier: 'default',
    store: request.store,
    temperature: request.temperature,
    text: { format: formatEcho(request), verbosity: 'medium' },
    tool_choice: request.toolChoiceEcho,
    tools: request.toolsEcho,
    top_logprobs: 0,
    top_p: request.topP,
    truncation: 'disabled',
    usage,
    user: request.user,
    metadata: request.metadata,
  };
}

function formatEcho(request: ResponsesRequest): Record<string, unknown> {
  const { format } = request;
  if (format.type !== 'json_schema') return { type: format.type };
  return { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict, description: null };
}
