import type { FinishReason, IrUsage } from '../../core/ir/chat.ts';

type Json = Record<string, unknown>;

/** The request's settings a `response` object repeats, fixed when the request is decoded. */
export type RequestEcho = Readonly<Json>;

/** The fields of `response` that repeat the request (the vendor's defaults where it set none). */
export function requestEcho(body: Json): RequestEcho {
  const format = (body.text as { format?: Json } | null | undefined)?.format;
  return {
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    max_output_tokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null,
    parallel_tool_calls: body.parallel_tool_calls !== false,
    previous_response_id: typeof body.previous_response_id === 'string' ? body.previous_response_id : null,
    reasoning: { effort: null, summary: null, ...(body.reasoning as Json | null | undefined) },
    store: body.store !== false,
    temperature: typeof body.temperature === 'number' ? body.temperature : 1,
    text: { format: format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: typeof body.top_p === 'number' ? body.top_p : 1,
    user: typeof body.user === 'string' ? body.user : null,
    metadata: (body.metadata as Json | null | undefined) ?? {},
  };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseMeta {
  id: string;
  createdAt: number;
  model: string;
}

/** A snapshot of the `response` object; `usage` is its last member (where the gateway adds the cost). */
export function responseObject(meta: ResponseMeta, echo: RequestEcho, status: ResponseStatus, output: readonly Json[], finish: FinishReason | null, usage: IrUsage | null, error: Json | null = null): Json {
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status,
    background: false,
    error,
    incomplete_details: status === 'incomplete' ? { reason: finish === 'content_filter' ? 'content_filter' : 'max_output_tokens' } : null,
    model: meta.model,
    output,
    service_tier: 'default',
    truncation: 'disabled',
    ...echo,
    usage: usage && responsesUsage(usage),
  };
}

/** The final status for a finish reason: cut by the output cap or a filter → incomplete. */
export function statusOf(finish: FinishReason | null): 'completed' | 'incomplete' {
  return finish === 'length' || finish === 'content_filter' ? 'incomplete' : 'completed';
}

/** IR usage → the Responses usage object: input counts the cached part too; output the reasoning. */
export function responsesUsage(usage: IrUsage) {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

/** Ids of this wire carry a kind prefix (`resp_`, `msg_`, `fc_`); other vendors' ids get one. */
export function prefixed(prefix: string, id: string): string {
  return id.startsWith(prefix) ? id : `${prefix}${id.replace(/[^A-Za-z0-9_-]/g, '')}`;
}

/**
 * A response's id and its message item's, from the vendor's answer id: one base under two
 * prefixes, so an `item_reference` to the message (which clients send for a stored answer)
 * names the response that holds it (see `responseOfItem`).
 */
export function answerIds(vendorId: string): { response: string; message: string; reasoning: string } {
  const response = prefixed('resp_', vendorId);
  const base = response.slice('resp_'.length);
  return { response, message: `msg_${base}`, reasoning: `rs_${base}` };
}

/** The response a message item id of this gateway belongs to (a later message item has an `_n` suffix). */
export function responseOfItem(itemId: string): string[] {
  if (!itemId.startsWith('msg_')) return [];
  const base = itemId.slice('msg_'.length);
  const trimmed = base.replace(/_\d+$/, '');
  return trimmed === base ? [`resp_${base}`] : [`resp_${base}`, `resp_${trimmed}`];
}

export function outputTextPart(text: string): Json {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

export function messageItem(id: string, status: ResponseStatus, content: Json[]): Json {
  return { id, type: 'message', status, content, role: 'assistant' };
}

/** The model's reasoning text as the item's one summary part (no `status`, as OpenAI writes reasoning items). */
export function reasoningItem(id: string, text: string | null): Json {
  return { id, type: 'reasoning', summary: text === null ? [] : [{ type: 'summary_text', text }] };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: ResponseStatus): Json {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name };
}
