import { GatewayError, upstreamUnavailable } from '../../core/errors.ts';
import type { Usage } from '../../core/usage.ts';
import { relayEvents, type StreamOutcome, type StreamRelay, type TargetInfo } from '../../core/contracts/vendor-codec.ts';
import { countTextTokens, type TextCounter } from '../../core/tokens/token-counter.ts';
import { SseDecoder, sseData, type SseEvent } from '../../core/sse.ts';
import { DeliveredEvents } from './delivered-events.ts';
import { fromOpenAIUsage, toOpenAIUsage } from './usage.ts';
import { bufferView } from '../../core/buffer-view.ts';

const DONE = sseData('[DONE]');
const STARTS_WITH_ERROR = /^\s*\{\s*"error"\s*:/;
const DATA_PREFIX = Buffer.from('data:');
const DONE_DATA = Buffer.from('[DONE]');
/** only the usage chunk carries a usage object; the others carry `"usage":null` or nothing */
const USAGE_KEY = '"usage":{';
/** searched for instead of the whole key: `"u` is in every chunk (`"usage":null`), `sage":{` is not */
const USAGE_OBJECT_TAIL = Buffer.from(USAGE_KEY.slice(2));
/**
 * How OpenAI ends every chunk but the usage one when usage was asked for (the gateway always asks):
 * such an event has no usage to read (JSON keeps a key's last value), and is not searched.
 */
const NULL_USAGE_END = Buffer.from('"usage":null}');
/** usageAt before the chunk was searched */
const NOT_SEARCHED = -2;
const LOWER_U = 0x75;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const OPEN_BRACE = 0x7b;
const QUOTE = 0x22;
const ERROR_KEY = Buffer.from('error"');
const NOTHING = new Uint8Array(0);
/** an event the byte path passes on exactly as it came */
const UNCHANGED = Symbol('unchanged');

/**
 * The family's pass-through: its stream to a client that reads the same wire, event by event,
 * unchanged but for four things: the usage-only chunk is dropped when the client did not ask
 * for it, the model id is renamed back when the provider maps it, an in-band upstream error
 * stops the stream, and the last event that carries usage is held back into the trailer. Usage
 * is read on the side; cumulative, so the last report wins.
 */
export class OpenAIPassthroughRelay implements StreamRelay {
  private usage: Usage | null = null;
  /** the last event that carried usage, held back to be written as part of the trailer */
  private held = '';
  private done = false;
  /**
   * What reached the client, read only for a count (a stream the client abandoned, one without
   * usage): every event's data, delta-encoded (see DeliveredEvents) — not the events' network
   * chunks, which a long open stream kept in memory at ~800 bytes of RSS each.
   */
  private readonly delivered = new DeliveredEvents();
  /** the byte path's unfinished last event */
  private rest: Buffer | undefined;
  /** set when the stream uses CR line ends: from then on, events are decoded as text */
  private text: SseDecoder | undefined;
  private readonly renameFrom: string | null;
  private readonly renameTo: string;
  private readonly clientWantsUsage: boolean;
  private readonly outputText: (json: Record<string, unknown>) => string;
  /** adds a request's paid features to the usage, given the service tier the usage chunk reports */
  private readonly finish: ((usage: Usage, echoedTier: unknown) => Usage) | undefined;
  private echoedTier: unknown;
  failed: GatewayError | undefined;

  constructor(
    target: TargetInfo,
    clientWantsUsage: boolean,
    outputText: (json: Record<string, unknown>) => string,
    finish?: (usage: Usage, echoedTier: unknown) => Usage,
  ) {
    this.finish = finish;
    this.clientWantsUsage = clientWantsUsage;
    this.outputText = outputText;
    this.renameFrom = target.upstreamModel === target.publicModel ? null : `"model":"${target.upstreamModel}"`;
    this.renameTo = `"model":"${target.publicModel}"`;
  }

  onEvent(event: SseEvent): string {
    let data = event.data;
    if (data === '[DONE]') {
      this.done = true;
      return '';
    }
    if (this.done || this.failed) return '';
    if (STARTS_WITH_ERROR.test(data)) {
      this.failed = inBandError(data);
      return '';
    }
    let holds = false;
    /** a chunk without choices (the usage chunk) has no text to count: not kept for a count */
    let countable = true;
    if (data.includes(USAGE_KEY)) {
      const json = parseOrNull(data);
      this.usage = fromOpenAIUsage(json?.usage) ?? this.usage;
      if (json?.service_tier !== undefined) this.echoedTier = json.service_tier;
      const usageOnly = Array.isArray(json?.choices) && json.choices.length === 0;
      if (usageOnly && !this.clientWantsUsage) return '';
      countable = !usageOnly;
      holds = true;
    }
    if (this.renameFrom !== null) data = data.replace(this.renameFrom, this.renameTo);
    if (countable) this.delivered.addText(data);
    // the last usage goes out in the trailer (the pipeline adds to it what it settled); a held one before anything later
    const earlier = this.held;
    if (!holds) {
      this.held = '';
      return earlier + sseData(data);
    }
    this.held = sseData(data);
    return earlier;
  }

  /**
   * The byte path: network chunks in, bytes for the client out. Events are found by their blank
   * line and passed on as they came — no UTF-8 decoding and re-encoding of text that only passes
   * through; only an event that must be looked into (usage, an error, a renamed model, an
   * unusual shape) is decoded, through onEvent. A stream with CR line ends goes to text.
   */
  onChunk(chunk: Uint8Array): Uint8Array | string {
    const bytes = this.rest ? Buffer.concat([this.rest, chunk]) : bufferView(chunk);
    this.rest = undefined;
    if (this.text || bytes.includes(CR)) return relayEvents(this, (this.text ??= new SseDecoder()).push(bytes));
    const out: Array<Uint8Array | string> = [];
    let start = 0;
    /** start of the run of unchanged events not yet put out */
    let run = 0;
    // the rare usage object is searched for once per chunk, not once per event, and only when an
    // event does not end as OpenAI's chunks without usage do
    let usageAt = NOT_SEARCHED;
    for (;;) {
      // events are found line by line (memchr for one byte, where a search for "\n\n" costs a
      // pattern search per event): one line ends where the next byte is LF too
      let end = bytes.indexOf(LF, start);
      let oneLine = true;
      while (end !== -1 && bytes[end + 1] !== LF) {
        end = bytes.indexOf(LF, end + 1);
        oneLine = false;
      }
      if (end === -1) break;
      let hasUsage = false;
      if (end - start <= NULL_USAGE_END.length || !bytesAt(bytes, end - NULL_USAGE_END.length, end, NULL_USAGE_END)) {
        if (usageAt === NOT_SEARCHED || (usageAt !== -1 && usageAt < start)) usageAt = nextUsageObject(bytes, start);
        hasUsage = usageAt !== -1 && usageAt < end;
      }
      const verdict = this.rawEvent(bytes, start, end, oneLine, hasUsage);
      if (verdict !== UNCHANGED) {
        if (run < start) out.push(bytes.subarray(run, start));
        if (verdict.length > 0) out.push(verdict);
        run = end + 2;
      }
      start = end + 2;
    }
    // the chunk's events are encoded once it is relayed, unless the stream ended in it: then its log is never read
    if (!this.done) this.delivered.settle();
    if (run < start) out.push(bytes.subarray(run, start));
    if (start < bytes.length) this.rest = bytes.subarray(start);
    if (out.length === 0) return NOTHING;
    if (out.length === 1) return out[0]!;
    return Buffer.concat(out.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
  }

  /** The end of the upstream body: a cut-off last event is dropped, as the SSE rules say. */
  onChunkEnd(): string {
    return this.text ? relayEvents(this, this.text.end()) : '';
  }

  end(): StreamOutcome {
    const usage = this.usage && this.finish ? this.finish(this.usage, this.echoedTier) : this.usage;
    if (!this.done) return { complete: false, usage, trailer: () => '' };
    return { complete: true, usage, trailer: (settled) => (this.held || (this.clientWantsUsage && this.usage === null ? this.countedUsageChunk(settled) : '')) + DONE };
  }

  /**
   * The usage chunk the upstream never sent, with the gateway's count: shaped like the last chunk
   * (id, object, created, model), choices empty.
   */
  private countedUsageChunk(settled: Usage): string {
    let meta: Record<string, unknown> = {};
    try {
      const last = this.delivered.lastText();
      if (last !== undefined) meta = JSON.parse(last) as Record<string, unknown>;
    } catch {
      // a malformed last event: the chunk goes without its fields
    }
    const chunk = { id: meta.id, object: meta.object, created: meta.created, model: meta.model, choices: [], usage: toOpenAIUsage(settled) };
    return sseData(JSON.stringify(chunk));
  }

  errorEvent(error: GatewayError): string {
    return sseData(JSON.stringify({ error: { message: error.message, type: error.type, param: error.param, code: error.code } }));
  }

  /** Parses the delivered chunks only when needed: a stream the client abandoned. */
  deliveredOutputTokens(count: TextCounter = countTextTokens): number {
    let text = '';
    this.delivered.forEach((data) => {
      try {
        text += this.outputText(JSON.parse(data) as Record<string, unknown>);
      } catch {
        // a malformed upstream event carries no countable text
      }
    });
    return count(text);
  }

  /**
   * One event of the byte path, bytes[start, end) without its blank line. Its bytes are looked
   * at in JavaScript, not with Buffer's compare and search (a native call each, ~6 per event
   * were two thirds of the stream's relay time).
   */
  private rawEvent(bytes: Buffer, start: number, end: number, oneLine: boolean, hasUsage: boolean): typeof UNCHANGED | Uint8Array | string {
    if (this.done || this.failed) return NOTHING;
    // the common shape, one `data:` line; anything else (comments, named events, several lines) as text
    if (!oneLine || !bytesAt(bytes, start, end, DATA_PREFIX)) {
      return relayEvents(this, new SseDecoder().push(bytes.subarray(start, end + 2)));
    }
    let dataStart = start + DATA_PREFIX.length;
    if (bytes[dataStart] === SPACE) dataStart++;
    if (end - dataStart === DONE_DATA.length && bytesAt(bytes, dataStart, end, DONE_DATA)) {
      this.done = true;
      return NOTHING;
    }
    // events that need a look inside: usage, a renamed model, an error (JSON that starts with "error")
    if (this.renameFrom !== null || hasUsage || this.held !== '' || mayBeError(bytes, dataStart, end)) {
      return this.onEvent({ data: bytes.toString('utf8', dataStart, end), event: undefined, id: undefined });
    }
    this.delivered.add(bytes, dataStart, end);
    return UNCHANGED;
  }
}

/**
 * Could the JSON in bytes[from, end) start with "error"? A chunk starts `{"id"` (or another key)
 * in the compact JSON vendors send: a few byte compares settle it; other spacing goes to the regex.
 */
function mayBeError(bytes: Buffer, from: number, end: number): boolean {
  if (bytes[from] === OPEN_BRACE && bytes[from + 1] === QUOTE) return bytesAt(bytes, from + 2, end, ERROR_KEY);
  return STARTS_WITH_ERROR.test(bytes.toString('latin1', from, Math.min(end, from + 32)));
}

/** Where the next `"usage":{` at or after `from` starts, or -1. */
function nextUsageObject(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(USAGE_OBJECT_TAIL, from + 2); at !== -1; at = bytes.indexOf(USAGE_OBJECT_TAIL, at + 1)) {
    if (bytes[at - 1] === LOWER_U && bytes[at - 2] === QUOTE) return at - 2;
  }
  return -1;
}

/** Does bytes[at, end) begin with `prefix`? */
function bytesAt(bytes: Buffer, at: number, end: number, prefix: Buffer): boolean {
  if (end - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function parseOrNull(data: string): { usage?: unknown; choices?: unknown; service_tier?: unknown } | null {
  try {
    return JSON.parse(data) as { usage?: unknown; choices?: unknown; service_tier?: unknown };
  } catch {
    return null;
  }
}

export function inBandError(data: string): GatewayError {
  try {
    const parsed = JSON.parse(data) as { error?: { message?: unknown } };
    const message = typeof parsed.error?.message === 'string' ? parsed.error.message : 'stream failed';
    return upstreamUnavailable(`The upstream provider failed mid-stream: ${message}`, 502, 'upstream_stream_error');
  } catch {
    return upstreamUnavailable('The upstream provider failed mid-stream.', 502, 'upstream_stream_error');
  }
}
