import { upstreamUnavailable, type GatewayError } from '../../core/errors.ts';
import type { Usage } from '../../core/usage.ts';
import type { ChatCall, ChatPassthrough, DecodedResponse, StreamOutcome, StreamRelay, TargetInfo, UpstreamRequest } from '../../core/contracts/vendor-codec.ts';
import { sseData, sseNamed, type SseEvent } from '../../core/sse.ts';
import { countTextTokens, type TextCounter } from '../../core/tokens/token-counter.ts';
import { asArray, asObject, parseJsonBytes, utf8Text, type JsonObject } from '../_kit/read.ts';
import { fromResponsesUsage } from './usage.ts';

/**
 * The Responses API relayed as it came (`POST /responses`), to a provider that opted in with
 * `settings.responses_api: true` — most OpenAI-compatible servers do not serve it, and get the
 * request translated to chat completions instead. The request goes with the upstream model id,
 * the gateway's output cap when the client set none, and `store: false` (the gateway is the
 * store: it keeps the vendor's answer under the vendor's id, see rewriter); the answer comes back
 * as the vendor's bytes but for the model renamed back, its usage read on the side.
 */
export const openaiResponsesPassthrough: ChatPassthrough = {
  wire: 'openai-responses',

  serves: (target) => target.settings?.responses_api === true,

  prepare(call, target): UpstreamRequest {
    const body: JsonObject = { ...call.native.body, model: target.upstreamModel, store: false };
    // the vendor cannot bill past the hold
    body.max_output_tokens ??= call.maxOutputTokens;
    return { path: '/responses', body: JSON.stringify(body) };
  },

  decode(call: ChatCall, target: TargetInfo, raw: Uint8Array): DecodedResponse {
    const json = asObject(parseJsonBytes(raw)) ?? {};
    const usage = withTier(fromResponsesUsage(json.usage), call, json.service_tier);
    const rewrite = rewriter(call, target);
    const keep = call.native?.keep;
    if (keep && (json.status === 'completed' || json.status === 'incomplete')) keep.save({ ...json, id: keep.id, model: target.publicModel, store: true });
    rewrite?.learn(json);
    return { body: rewrite ? rewrite.apply(utf8Text(raw)) : raw, contentType: 'application/json', usage, ...(usage === null && { outputText: outputTextOf(json) }) };
  },

  relay(call: ChatCall, target: TargetInfo): StreamRelay {
    return new ResponsesPassthroughRelay(call, target);
  },
};

/**
 * What the client must read otherwise than the vendor wrote it, or undefined: the model id the
 * client asked for where the provider maps it; and where the gateway keeps the answer (the
 * upstream was sent `store: false`), `store: true` and the response id the gateway named it
 * (`keep.id`) in place of the vendor's, learnt from the first response object. In JSON a quote
 * inside a string is escaped, so the members are found wherever they stand; the rest of the
 * bytes — item ids, sequence numbers — stay the vendor's.
 */
interface Rewrite {
  learn(response: JsonObject | undefined): void;
  apply(text: string): string;
}

function rewriter(call: ChatCall, target: TargetInfo): Rewrite | undefined {
  const renamed = target.upstreamModel !== target.publicModel;
  const keep = call.native?.keep;
  if (!renamed && !keep) return undefined;
  const model = new RegExp(`("model"\\s*:\\s*)"${escapeRegExp(target.upstreamModel)}"`, 'g');
  const publicModel = JSON.stringify(target.publicModel);
  let vendorId: RegExp | undefined;
  return {
    learn(response) {
      if (keep && !vendorId && typeof response?.id === 'string') vendorId = new RegExp(`("id"\\s*:\\s*)"${escapeRegExp(response.id)}"`, 'g');
    },
    apply(text) {
      let out = renamed ? text.replace(model, (_, key: string) => key + publicModel) : text;
      if (keep) {
        out = out.replace(STORE_FALSE, '$1true');
        if (vendorId) out = out.replace(vendorId, (_, key: string) => `${key}"${keep.id}"`);
      }
      return out;
    },
  };
}

const STORE_FALSE = /("store"\s*:\s*)false/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A paid service tier the request asked for, in the usage: the one the answer reports, else the
 * one asked for (checked priced by the dialect); auto and default cost nothing extra.
 */
function withTier(usage: Usage | null, call: ChatCall, echoed: unknown): Usage | null {
  const asked = call.native?.body.service_tier;
  if (usage === null || typeof asked !== 'string' || asked === 'auto' || asked === 'default') return usage;
  return { ...usage, serviceTier: typeof echoed === 'string' ? echoed : asked };
}

/** The message text and function calls of a `response` object: what is counted when the vendor reports no usage. */
function outputTextOf(response: JsonObject): string {
  let text = '';
  for (const item of asArray(response.output).map(asObject)) {
    if (item?.type === 'function_call') text += String(item.name ?? '') + String(item.arguments ?? '');
    for (const part of asArray(item?.content).map(asObject)) if (typeof part?.text === 'string') text += part.text;
  }
  return text;
}

/** the events that close a response: the last, carrying its usage */
const FINAL = new Set(['response.completed', 'response.incomplete']);

/**
 * The vendor's typed events written as they came (sequence numbers and item ids untouched, the
 * model renamed back). The closing event (`response.completed` / `response.incomplete`) carries
 * the usage: it is read, and held back into the trailer, where the pipeline adds the settled cost
 * to its `usage`. An `error` event or `response.failed` stops the stream: the pipeline ends it
 * with errorEvent, like a failure of the translated stream.
 */
class ResponsesPassthroughRelay implements StreamRelay {
  private usage: Usage | null = null;
  private held = '';
  private complete = false;
  private readonly delivered: string[] = [];
  private readonly rewrite: Rewrite | undefined;
  private readonly call: ChatCall;
  private readonly publicModel: string;
  /** the vendor's last sequence number and response object: what a failure written in its place follows */
  private lastSequence = -1;
  private snapshot: JsonObject = {};
  failed: GatewayError | undefined;

  constructor(call: ChatCall, target: TargetInfo) {
    this.call = call;
    this.publicModel = target.publicModel;
    this.rewrite = rewriter(call, target);
  }

  onEvent(event: SseEvent): string {
    if (this.failed || this.complete) return '';
    const json = parseOrNull(event.data);
    const type = typeof json?.type === 'string' ? json.type : event.event;
    if (type === 'error' || type === 'response.failed') {
      this.failed = streamFailure(json);
      return '';
    }
    if (typeof json?.sequence_number === 'number') this.lastSequence = json.sequence_number;
    const snapshot = asObject(json?.response);
    if (snapshot) this.snapshot = snapshot;
    if (type === 'response.output_text.delta' || type === 'response.function_call_arguments.delta') {
      if (typeof json?.delta === 'string') this.delivered.push(json.delta);
    }
    this.rewrite?.learn(asObject(json?.response));
    const data = this.rewrite ? this.rewrite.apply(event.data) : event.data;
    const text = event.event === undefined ? sseData(data) : sseNamed(event.event, data);
    if (type !== undefined && FINAL.has(type)) {
      const response = asObject(json?.response);
      this.usage = withTier(fromResponsesUsage(response?.usage), this.call, response?.service_tier);
      const keep = this.call.native?.keep;
      if (keep && response) keep.save({ ...response, id: keep.id, model: this.publicModel, store: true });
      this.complete = true;
      this.held = text;
      return '';
    }
    return text;
  }

  end(): StreamOutcome {
    if (!this.complete) return { complete: false, usage: this.usage, trailer: () => '' };
    return { complete: true, usage: this.usage, trailer: () => this.held };
  }

  /**
   * What the vendor sends when it fails, numbered on from its last event: `error`, then
   * `response.failed` with the last response object it sent (named as the client read it).
   */
  errorEvent(error: GatewayError): string {
    const body = { code: error.code ?? error.type, message: error.message };
    let sequence = this.lastSequence;
    const event = (type: string, fields: JsonObject) => sseNamed(type, JSON.stringify({ type, sequence_number: ++sequence, ...fields }));
    const keep = this.call.native?.keep;
    const response = { ...this.snapshot, ...(keep && { id: keep.id, store: true }), model: this.publicModel, status: 'failed', error: body, usage: null };
    return event('error', { ...body, param: error.param ?? null }) + event('response.failed', { response });
  }

  deliveredOutputTokens(count: TextCounter = countTextTokens): number {
    return count(this.delivered.join(''));
  }
}

function parseOrNull(data: string): JsonObject | undefined {
  try {
    return asObject(JSON.parse(data));
  } catch {
    return undefined;
  }
}

function streamFailure(json: JsonObject | undefined): GatewayError {
  const error = asObject(json?.error) ?? asObject(asObject(json?.response)?.error) ?? json;
  const message = typeof error?.message === 'string' ? error.message : 'stream failed';
  return upstreamUnavailable(`The upstream provider failed mid-stream: ${message}`, 502, 'upstream_stream_error');
}
