import type { GatewayError } from '../errors.ts';
import type { IrChatRequest, IrCompletion, IrUsage } from '../ir/chat.ts';
import type { IrStreamFrame } from '../ir/stream.ts';
import type { ChatWire } from '../ir/output.ts';
import type { ProviderSettings } from './provider-settings.ts';
import type {
  ImageEditCall,
  ImageGenerationCall,
  ImageResult,
  ModerationCall,
  RerankCall,
  RerankResult,
  SpeechCall,
  TranscriptionCall,
  VideoCall,
  VideoPoll,
  VideoSubmitted,
} from '../ir/media.ts';
import type { Usage } from '../usage.ts';
import type { SseEvent } from '../sse.ts';
import type { TextCounter } from '../tokens/token-counter.ts';

/**
 * The contract between the pipeline and a vendor family for one operation. Codecs are pure:
 * no I/O, no clock, no logging. The pipeline sends what `prepare` returns, then hands the
 * answer to `decode` (whole body) or to the `relay` (event stream, event by event).
 */

/** Where a call goes: what the pipeline knows about the chosen provider. */
export interface TargetInfo {
  providerId: string;
  /** the model id to send upstream (after the provider's model_map) */
  upstreamModel: string;
  /** the model id the client asked for */
  publicModel: string;
  /** the provider's optional settings (absent where no provider is involved, e.g. unit tests) */
  settings?: ProviderSettings;
}

/** A request body: text, bytes, or a stream produced afresh for each attempt (multipart uploads). */
export type UpstreamBody = string | Uint8Array | AsyncIterable<Uint8Array>;

export interface UpstreamRequest {
  method?: 'POST' | 'GET' | 'DELETE';
  /** appended to the provider's base URL, e.g. `/chat/completions`; an absolute URL on the provider's origin is taken as it is */
  path: string;
  body?: UpstreamBody;
  /** extra headers; authentication is added by the pipeline from the family's manifest */
  headers?: Record<string, string>;
  /**
   * Settings this family cannot honour and dropped (or changed); the client is told in an
   * `x-modelgate-warning` header. Settings that cannot be dropped make `prepare` throw a 400.
   */
  warnings?: string[];
}

export interface DecodedResponse<Result = never> {
  /** the client's bytes, when the codec answers in the client's dialect itself (pass-through) */
  body?: string | Uint8Array;
  contentType?: string;
  /** null when the vendor did not report usage: the pipeline then counts locally */
  usage: Usage | null;
  /** tokens the pipeline may count locally when usage is null */
  outputText?: string;
  /** the answer in the gateway's neutral form, encoded for the client by `OperationRequest.respond` */
  result?: Result;
}

/** A binary answer relayed to the client as it arrives (speech audio). */
export interface ByteStream {
  contentType: string;
  /** what the whole answer costs; known from the request */
  usage: Usage;
}

export interface StreamOutcome {
  /** the upstream ended the stream properly (e.g. `[DONE]` seen) */
  complete: boolean;
  usage: Usage | null;
  /**
   * Text to write after the last event when the stream completed, written after settlement: the
   * closing events, and the last one that carries usage (a relay holds it back), whose usage
   * object the pipeline adds the settled cost to. `settled` is the usage the call is charged for:
   * the reported one, or the gateway's count when none came (written where the client asked for usage).
   */
  trailer(settled: Usage): string;
  /** an in-band error the upstream sent mid-stream */
  error?: GatewayError;
}

/** Created per attempt; turns upstream events into client bytes and watches usage on the side. */
export interface StreamRelay {
  /** one upstream event → text for the client ('' = nothing to write) */
  onEvent(event: SseEvent): string;
  /**
   * Optional byte path, used instead of decoding events when present: one network chunk → what
   * to write to the client. A relay that passes most events on unchanged skips their UTF-8
   * decoding and re-encoding this way.
   */
  onChunk?(chunk: Uint8Array): Uint8Array | string;
  /** with onChunk: the upstream body ended; anything still to write */
  onChunkEnd?(): string;
  /** the upstream closed the stream */
  end(): StreamOutcome;
  /** in-band error text in the client's dialect, written before closing a failed stream */
  errorEvent(error: GatewayError): string;
  /** output tokens delivered so far, counted locally by `count` (the text counter's calls: one per text) */
  deliveredOutputTokens(count?: TextCounter): number;
  /** an upstream error arrived inside the stream: stop relaying */
  readonly failed: GatewayError | undefined;
  /** the stream's Content-Type when it is not `text/event-stream` (it then keeps alive with whitespace, not SSE comments) */
  readonly contentType?: string;
}

/** The client's text for a run of events; stops at an in-band failure (nothing after it is relayed). */
export function relayEvents(relay: StreamRelay, events: SseEvent[]): string {
  let out = '';
  for (const event of events) {
    out += relay.onEvent(event);
    if (relay.failed) break;
  }
  return out;
}

/** How an upstream error answer is seen by the router and by the client. */
export interface UpstreamFailure {
  /** try the next candidate (5xx, 429, auth trouble on our side) */
  retryable: boolean;
  /** what the client receives when no candidate is left */
  error: GatewayError;
}

export interface OperationCodec<Call, Result = never> {
  prepare(call: Call, target: TargetInfo): UpstreamRequest;
  /** may throw a GatewayError for a 2xx answer that is a refusal (e.g. every image filtered) */
  decode(call: Call, target: TargetInfo, body: Uint8Array): DecodedResponse<Result>;
  relay?(call: Call, target: TargetInfo): StreamRelay;
  /** binary answers: when present, the upstream body is relayed to the client chunk by chunk */
  bytes?(call: Call, target: TargetInfo, headers: Record<string, string | string[] | undefined>): ByteStream;
  mapError(status: number, body: Uint8Array, headers: Record<string, string | string[] | undefined>): UpstreamFailure;
}

/** A chat request in the IR (the OpenAI chat shape), validated already. Nothing in it says which dialect the client speaks. */
export interface ChatCall {
  body: IrChatRequest;
  stream: boolean;
  /** the client asked for the usage chunk (`stream_options.include_usage`) */
  clientWantsUsage: boolean;
  /** the client's output bound, or the gateway's default when it set none (vendors that require one send this) */
  maxOutputTokens: number;
  /** Unix seconds the request arrived: `created` of answers the gateway builds */
  created: number;
  /** settings the client dialect could not carry into the IR (see UpstreamRequest.warnings) */
  warnings?: string[];
  /**
   * The client's own request, when its dialect is a vendor family's wire (not the IR's): a family
   * whose pass-through speaks `wire` sends it as it came (ChatPassthrough.prepare), settings the
   * IR would drop included. `keep`, when set: the client's dialect stores its answers (the
   * Responses API's `store`) under ids it names itself, unique whatever the upstream sends — the
   * pass-through names the answer `keep.id` and hands the complete one, in the wire's shape with
   * the client's model id, to `keep.save`.
   */
  native?: { wire: ChatWire; body: Record<string, unknown>; keep?: { id: string; save(answer: Record<string, unknown>): void } };
}

/** A whole chat answer in the IR, with the usage the vendor reported (null: the pipeline counts locally). */
export interface DecodedCompletion {
  completion: IrCompletion;
  usage: Usage | null;
}

/**
 * A vendor's half of a translated stream: upstream events → IR stream parts, with the usage and the
 * end of the stream watched on the side. Pure and incremental: it sees one event at a time.
 */
export interface IrStreamDecoder {
  /** one upstream event → the frames of IR parts it completes (often none or one) */
  onEvent(event: SseEvent): IrStreamFrame[];
  /** the upstream closed: whether the stream ended properly, and the last cumulative usage */
  end(): { complete: boolean; usage: IrUsage | null };
  /** the cumulative usage the vendor reported so far (null: none yet), read while the stream goes on */
  usageSoFar?(): IrUsage | null;
  /** an error the upstream sent inside the stream */
  readonly failed: GatewayError | undefined;
}

/**
 * The family's own wire, answered untouched (but for the model id and usage it reads on the side)
 * to a client that speaks it. The pipeline decides when (src/pipeline/chat-codec.ts).
 */
export interface ChatPassthrough {
  wire: ChatWire;
  /** the client's own request (`ChatCall.native`) to the upstream; absent: the IR is the family's wire and `ChatCodec.prepare` serves both */
  prepare?(call: ChatCall & { native: NonNullable<ChatCall['native']> }, target: TargetInfo): UpstreamRequest;
  /** whether this provider serves the wire (a setting it opts in with); absent: every provider of the family does */
  serves?(target: TargetInfo): boolean;
  /** the answer as the client's bytes (`body` set) */
  decode(call: ChatCall, target: TargetInfo, body: Uint8Array): DecodedResponse;
  relay(call: ChatCall, target: TargetInfo): StreamRelay;
}

/**
 * Chat to a vendor family: the IR to its wire and back. It says only what it knows — its own
 * wire — and never which dialect the client speaks; the pipeline composes it with the client's
 * encoder (or its pass-through) per request.
 */
export interface ChatCodec {
  prepare(call: ChatCall, target: TargetInfo): UpstreamRequest;
  /** a whole answer → the IR */
  decode(call: ChatCall, target: TargetInfo, body: Uint8Array): DecodedCompletion;
  /** a fresh decoder per stream */
  streamDecoder(call: ChatCall, target: TargetInfo): IrStreamDecoder;
  /** the wires the family can pass through, one pass-through each */
  passthroughs?: readonly ChatPassthrough[];
  mapError(status: number, body: Uint8Array, headers: Record<string, string | string[] | undefined>): UpstreamFailure;
}

/**
 * A native messages request (`POST /v1/messages`) as the client sent it. A provider of the
 * messages family receives it untouched; any other provider receives `toChat()`, the same
 * request in the IR, through the messages bridge.
 */
export interface MessagesCall {
  body: Record<string, unknown>;
  stream: boolean;
  /** the API version the client asked for (`native-version` or its vendor spelling) */
  nativeVersion: string;
  /** feature flags the client asked for, passed on to a native upstream */
  nativeBeta: string | undefined;
  /** the request in the IR, translated on first use (a 400 when it cannot be) */
  toChat(): ChatCall;
}

/** `POST /v1/messages/count_tokens`, passed through to a native upstream. */
export interface CountTokensCall {
  body: Record<string, unknown>;
  nativeVersion: string;
  nativeBeta: string | undefined;
}

export interface CompletionsCall {
  body: Record<string, unknown>;
  stream: boolean;
  clientWantsUsage: boolean;
}

export interface EmbeddingsCall {
  body: Record<string, unknown>;
  /** the format the client asked for; the upstream may be asked for another */
  encodingFormat: 'float' | 'base64';
}

export type MessagesCodec = OperationCodec<MessagesCall>;
export type CountTokensCodec = OperationCodec<CountTokensCall>;
export type CompletionsCodec = OperationCodec<CompletionsCall>;
export type EmbeddingsCodec = OperationCodec<EmbeddingsCall>;

export type TranscriptionCodec = OperationCodec<TranscriptionCall>;
export type SpeechCodec = OperationCodec<SpeechCall>;
export type ImagesCodec = OperationCodec<ImageGenerationCall, ImageResult>;
export type ImageEditsCodec = OperationCodec<ImageEditCall, ImageResult>;
export type ModerationsCodec = OperationCodec<ModerationCall>;
export type RerankCodec = OperationCodec<RerankCall, RerankResult>;

/** Where a finished job's upstream state lives: enough for the worker to poll it later. */
export interface JobRef {
  upstreamId: string;
  upstreamModel: string;
}

/**
 * Video generation is a job: `submit` goes through the pipeline like any operation (the hold
 * then passes to the job); the background worker calls `poll` until the job ends and
 * `download` for the finished video.
 */
export interface VideoCodec extends OperationCodec<VideoCall, VideoSubmitted> {
  poll: {
    prepare(job: JobRef): UpstreamRequest;
    decode(job: JobRef, body: Uint8Array): VideoPoll;
  };
  /** the request that fetches a finished video, when the poll answer named an upstream path */
  download(job: JobRef, path: string): UpstreamRequest;
}
