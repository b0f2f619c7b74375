import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { IrChatRequest } from '../../core/ir/chat.ts';
import type { ChatOutput } from '../../core/ir/output.ts';
import type { ChatCall } from '../../core/contracts/vendor-codec.ts';
import type { Decoded } from '../../core/contracts/dialect.ts';
import { PromptEstimate as LazyPromptEstimate } from '../../core/tokens/prompt-estimate.ts';
import { countChatPromptTokens, IMAGE_ALLOWANCE, REPLY_PRIMER } from '../../core/tokens/token-counter.ts';
import { paidChatFeatures } from './chat-paid-features.ts';
import { openaiChatOutput } from './chat-output.ts';

/** A chat request and the dialect's encoder for its answer, which the pipeline composes with the vendor's codec. */
export interface DecodedChat extends Decoded<ChatCall> {
  output: ChatOutput;
}

const TOOL_CHOICE_STRINGS = new Set(['auto', 'none', 'required']);

/**
 * Rules of the chat endpoint that a JSON Schema cannot express, each answered with a 400
 * naming the field; then the call and its cost's upper bound (prompt tokens counted locally,
 * plus the output allowance times `n`).
 */
export function decodeChat(body: Record<string, unknown>, defaultMaxOutputTokens: number, model?: CatalogueModel, bodyBytes?: number): DecodedChat {
  const stream = body.stream === true;
  // `modality: "image"` (the specification's extra field) needs a model that can draw
  if (body.modality === 'image' && model && model.capabilities.image_output !== true) {
    throw invalidRequest(`modality "image" needs a chat model that can output images; ${model.id} cannot.`, 'modality');
  }
  if (body.stream_options != null && !stream) {
    throw invalidRequest('stream_options is only allowed when stream is true', 'stream_options');
  }
  checkToolChoice(body.tool_choice);
  if (body.top_logprobs != null && body.logprobs !== true) {
    throw invalidRequest('top_logprobs requires logprobs to be true', 'top_logprobs');
  }
  const format = body.response_format as { type?: string; json_schema?: { name?: unknown } } | undefined;
  if (format?.type === 'json_schema' && typeof format.json_schema?.name !== 'string') {
    throw invalidRequest('response_format.json_schema.name is required when type is json_schema', 'response_format.json_schema.name');
  }
  const messages = body.messages as Array<Record<string, unknown>>;
  messages.forEach((message, i) => checkMessage(message, i));
  // features billed beyond the tokens: refused unless priced, else reserved for
  const paid = model && paidChatFeatures(body, model);

  const n = typeof body.n === 'number' ? body.n : 1;
  const clientCap = numberOr(body.max_completion_tokens, numberOr(body.max_tokens, undefined));
  const modelMax = model?.maxOutputTokens ?? undefined;
  // no cap from the client: the allowance (never above the model's maximum) is sent upstream
  const maxOutput = clientCap ?? (modelMax === undefined ? defaultMaxOutputTokens : Math.min(defaultMaxOutputTokens, modelMax));
  const streamOptions = body.stream_options as { include_usage?: boolean } | null | undefined;
  const clientWantsUsage = streamOptions?.include_usage === true;
  const call: ChatCall = {
    // the route's schema and the checks above make the body an IR request
    body: body as IrChatRequest,
    stream,
    clientWantsUsage,
    maxOutputTokens: maxOutput,
    created: Math.floor(Date.now() / 1000),
  };
  const decoded: DecodedChat = { model: body.model as string, stream, call, output: openaiChatOutput(clientWantsUsage), estimate: new PromptEstimate(body, messages, bodyBytes, maxOutput * n) };
  if (paid) decoded.estimate.paid = paid;
  if (clientCap === undefined && modelMax !== undefined && modelMax > maxOutput) {
    decoded.openOutputCap = { modelMaxTokens: modelMax, choices: n, grant: (tokens) => (call.maxOutputTokens = tokens) };
  }
  return decoded;
}

/**
 * The prompt's tokens, counted with the tokenizer only when read. Beside it a bound that costs
 * nothing to compute: every token of the local count is at least one byte of the JSON body, but
 * for images, which count a fixed allowance each.
 *
 * A class rather than an object literal with a getter: such a literal is a dictionary-mode object
 * with a new accessor pair and closure per request. A large prompt is counted off the event loop
 * (`settle`, see LazyPromptEstimate).
 */
class PromptEstimate extends LazyPromptEstimate<Record<string, unknown>> {
  readonly inputTokensUpperBound: number | undefined;

  constructor(
    body: Record<string, unknown>,
    messages: Array<Record<string, unknown>>,
    bodyBytes: number | undefined,
    outputTokens: number,
  ) {
    super(body, countChatPromptTokens, outputTokens, bodyBytes ?? Number.NaN);
    this.inputTokensUpperBound = bodyBytes !== undefined && Number.isFinite(bodyBytes) ? bodyBytes + REPLY_PRIMER + IMAGE_ALLOWANCE * imageParts(messages) : undefined;
  }
}

function imageParts(messages: Array<Record<string, unknown>>): number {
  let count = 0;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type?: unknown }>) if (part.type === 'image_url') count++;
  }
  return count;
}

function checkToolChoice(choice: unknown): void {
  if (choice == null) return;
  if (typeof choice === 'string') {
    if (!TOOL_CHOICE_STRINGS.has(choice)) throw invalidRequest('tool_choice must be "auto", "none", "required" or an object naming a tool', 'tool_choice');
    return;
  }
  const object = choice as { type?: unknown; function?: { name?: unknown }; custom?: { name?: unknown }; allowed_tools?: unknown };
  const named =
    (object.type === 'function' && typeof object.function?.name === 'string') ||
    (object.type === 'custom' && typeof object.custom?.name === 'string') ||
    (object.type === 'allowed_tools' && typeof object.allowed_tools === 'object');
  if (!named) throw invalidRequest('tool_choice object must be {"type": "function", "function": {"name": …}}', 'tool_choice');
}

function checkMessage(message: Record<string, unknown>, i: number): void {
  const role = message.role;
  if (role === 'tool' && typeof message.tool_call_id !== 'string') {
    throw invalidRequest(`messages[${i}].tool_call_id is required for role "tool"`, `messages[${i}].tool_call_id`);
  }
  const content = message.content;
  if (content == null && role !== 'assistant' && role !== 'function') {
    throw invalidRequest(`messages[${i}].content is required for role "${String(role)}"`, `messages[${i}].content`);
  }
  if (role === 'assistant' && content == null && message.tool_calls == null && message.function_call == null) {
    throw invalidRequest(`messages[${i}] must have content or tool_calls`, `messages[${i}].content`);
  }
}

function numberOr<T extends number | undefined>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' ? value : fallback;
}
