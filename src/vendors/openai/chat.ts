import { usageFromIr } from '../../core/ir/usage.ts';
import type { Usage } from '../../core/usage.ts';
import type { ChatCall, ChatCodec, DecodedCompletion, DecodedResponse, IrStreamDecoder, StreamRelay, TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { topLevelMemberFromEnd } from '../_kit/json-tail.ts';
import { asObject, parseJsonBytes, utf8Text } from '../_kit/read.ts';
import { dropUnknownFields } from '../_kit/drop-fields.ts';
import { CHAT_FIELDS } from './allowed-fields.ts';
import { completionToIr } from './convert-response.ts';
import { mapOpenAIError } from './errors.ts';
import { OpenAIPassthroughRelay } from './passthrough-relay.ts';
import { openaiResponsesPassthrough } from './responses-passthrough.ts';
import { withOutputCap } from './output-cap.ts';
import { OpenAIStreamDecoder } from './stream-decoder.ts';
import { fromOpenAIUsage } from './usage.ts';

/**
 * Chat completions to an OpenAI-family upstream. The IR is this family's wire: the request goes
 * as it is but for the model id and the usage request on streams. A client that speaks the same
 * wire may get the answer through untouched (the pass-through); any other gets it through the IR.
 */
export const openaiChat: ChatCodec = {
  prepare(call: ChatCall, target: TargetInfo) {
    const body = passthroughBody(call, target);
    const warnings = dropUnknownFields(body, CHAT_FIELDS);
    return { path: '/chat/completions', body: JSON.stringify(withOutputModalities(withOutputCap(body, call, target.upstreamModel))), ...(warnings && { warnings }) };
  },

  decode(call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedCompletion {
    const completion = completionToIr(asObject(parseJsonBytes(raw)) ?? {}, target, call.created);
    return { completion, usage: completion.usage && usageFromIr(completion.usage) };
  },

  streamDecoder(call: ChatCall, target: TargetInfo): IrStreamDecoder {
    return new OpenAIStreamDecoder(target, call.created);
  },

  passthroughs: [
    {
      wire: 'openai-chat',

      decode(call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedResponse {
        const decoded = decodeOpenAIJson(raw, target, (json) => chatOutputText(json));
        if (decoded.usage && hasSurcharge(call.body)) {
          // only a request with a paid feature reads the tier the answer reports
          const echoed = paidTier(call.body) === undefined ? undefined : (JSON.parse(utf8Text(raw)) as { service_tier?: unknown }).service_tier;
          decoded.usage = withSurcharges(decoded.usage, call.body, echoed);
        }
        return decoded;
      },

      relay(call: ChatCall, target: TargetInfo): StreamRelay {
        const finish = hasSurcharge(call.body) ? (usage: Usage, echoedTier: unknown) => withSurcharges(usage, call.body, echoedTier) : undefined;
        return new OpenAIPassthroughRelay(target, call.clientWantsUsage, chunkOutputText, finish);
      },
    },
    openaiResponsesPassthrough,
  ],

  mapError: mapOpenAIError,
};

/**
 * The client's body with the upstream model id; streams always ask for usage so billing is
 * exact (the relay hides the usage chunk again when the client did not ask for it). Always
 * re-serialised, never the client's bytes forwarded: a body with a duplicate `model` key is
 * routed and billed by the last one, and an upstream parser that keeps the first would run the
 * other model.
 */
export function passthroughBody(call: { body: Record<string, unknown>; stream: boolean }, target: TargetInfo): Record<string, unknown> {
  const body: Record<string, unknown> = { ...call.body, model: target.upstreamModel };
  if (call.stream) {
    const options = (call.body.stream_options as Record<string, unknown> | null | undefined) ?? {};
    body.stream_options = { ...options, include_usage: true };
  }
  return body;
}

/** A paid service tier the request asked for (checked priced by the chat decoder); auto and default cost nothing extra. */
function paidTier(body: Record<string, unknown>): string | undefined {
  const tier = body.service_tier;
  return typeof tier === 'string' && tier !== 'auto' && tier !== 'default' ? tier : undefined;
}

function hasSurcharge(body: Record<string, unknown>): boolean {
  return body.web_search_options != null || paidTier(body) !== undefined;
}

/**
 * The paid features of a request in its usage: the tier it ran at (the one the answer reports,
 * else the one asked for: a priority request served at the default tier pays the standard price)
 * and the web search a search model runs once per request.
 */
function withSurcharges(usage: Usage, body: Record<string, unknown>, echoedTier: unknown): Usage {
  const tier = paidTier(body);
  const out: Usage = { ...usage };
  if (tier !== undefined) out.serviceTier = typeof echoedTier === 'string' ? echoedTier : tier;
  if (body.web_search_options != null) out.toolCalls = { web_search: 1 };
  return out;
}

/**
 * The gateway's `modality: "image"` (the specification's extra field) becomes the form
 * OpenAI-compatible image-output servers take, `modalities: ["image", "text"]`; their answer
 * (`message.images` / `delta.images`, data URLs) is already the shape the gateway returns.
 */
function withOutputModalities(body: Record<string, unknown>): Record<string, unknown> {
  if (body.modality === undefined && body.include_reasoning === undefined) return body;
  // include_reasoning is the gateway's own too: OpenAI-compatible servers show reasoning unasked or never
  const { modality, include_reasoning: _includeReasoning, ...rest } = body;
  if (modality === 'image' && rest.modalities === undefined) rest.modalities = ['image', 'text'];
  return rest;
}

/**
 * Reads an OpenAI JSON answer's usage and, only when the provider renamed the model, rewrites
 * `model` back to the id the client asked for. The answer passes as the vendor's bytes: when its
 * top-level `usage` can be read from the end (json-tail.ts), nothing else is parsed — a batch of
 * embeddings is megabytes of numbers. Otherwise (no usage, a renamed model, an unusual shape) the
 * whole answer is parsed, as before.
 */
export function decodeOpenAIJson(raw: Uint8Array, target: TargetInfo, outputText: (json: Record<string, unknown>) => string): DecodedResponse {
  if (target.upstreamModel === target.publicModel) {
    const usage = fromOpenAIUsage(topLevelMemberFromEnd(raw, 'usage'));
    if (usage) return { body: raw, contentType: 'application/json', usage };
  }
  const json = JSON.parse(utf8Text(raw)) as Record<string, unknown>;
  const usage = fromOpenAIUsage(json.usage);
  const renamed = target.upstreamModel !== target.publicModel && typeof json.model === 'string';
  if (renamed) json.model = target.publicModel;
  return {
    body: renamed ? JSON.stringify(json) : raw,
    contentType: 'application/json',
    usage,
    ...(usage === null && { outputText: outputText(json) }),
  };
}

interface ChatMessagePart {
  content?: unknown;
  refusal?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
}

interface ChatChoice {
  message?: ChatMessagePart;
  delta?: ChatMessagePart;
}

/** the output text the model wrote, as the stream decoder reads it: reasoning (the first field present), answer, refusal, tool calls */
function choiceText(part: ChatMessagePart | undefined): string {
  if (!part) return '';
  const reasoning = typeof part.reasoning_content === 'string' ? part.reasoning_content : typeof part.reasoning === 'string' ? part.reasoning : '';
  let text = reasoning + (typeof part.content === 'string' ? part.content : '') + (typeof part.refusal === 'string' ? part.refusal : '');
  for (const call of part.tool_calls ?? []) text += (call.function?.name ?? '') + (call.function?.arguments ?? '');
  return text;
}

function chatOutputText(json: Record<string, unknown>): string {
  const choices = (json.choices as ChatChoice[] | undefined) ?? [];
  return choices.map((c) => choiceText(c.message)).join('');
}

function chunkOutputText(json: Record<string, unknown>): string {
  const choices = (json.choices as ChatChoice[] | undefined) ?? [];
  return choices.map((c) => choiceText(c.delta)).join('');
}
