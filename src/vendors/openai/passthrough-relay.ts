import { GatewayError, upstreamUnavailable } from '../../core/errors.ts';
import type { Usage } from '../../core/usage.ts';
import { relayEvents, type StreamOutcome, type StreamRelay, type TargetInfo } from '../../pipeline/codec.ts';
import { countTextTokens } from '../../pipeline/token-counter.ts';
import { SseDecoder, sseData, type SseEvent } from '../_kit/sse.ts';
import { fromOpenAIUsage } from './usage.ts';

const DONE = sseData('[DONE]');
const STARTS_WITH_ERROR = /^\s*\{\s*"error"\s*:/;
const EVENT_END = Buffer.from('\n\n');
const DATA_PREFIX = Buffer.from('data:');
const DONE_DATA = Buffer.from('[DONE]');
/** only the usage chunk carries a usage object; the others carry `"usage":null` or nothing */
const USAGE_KEY = '"usage":{';
const USAGE_OBJECT = Buffer.from(USAGE_KEY);
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
 * Relays an OpenAI-dialect stream to an OpenAI-dialect client, event by event, unchanged but
 * for three things: the usage-only chunk is dropped when the client did not ask for it, the
 * model id is renamed back when the provider maps it, and an in-band upstream error stops the
 * stream. Usage is read on the side; cumulative, so the last report wins.
 */
export class OpenAIPassthroughRelay implements StreamRelay {
  private usage: Usage | null = null;
  private done = false;
  private readonly delivered: Array<string | Uint8Array> = [];
  /** the byte path's unfinished last event */
  private rest: Buffer | undefined;
  /** set when the stream uses CR line ends: from then on, events are decoded as text */
  private text: SseDecoder | undefined;
  private readonly renameFrom: string | null;
  private readonly renameTo: string;
  private readonly clientWantsUsage: boolean;
  private readonly outputText: (json: Record<string, unknown>) => string;
  failed: GatewayError | undefined;

  constructor(target: TargetInfo, clientWantsUsage: boolean, outputText: (json: Record<string, unknown>) => string) {
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
    if (data.includes(USAGE_KEY)) {
      const json = parseOrNull(data);
      this.usage = fromOpenAIUsage(json?.usage) ?? this.usage;
      if (!this.clientWantsUsage && Array.isArray(json?.choices) && json.choices.length === 0) return '';
    }
    if (this.renameFrom !== null) data = data.replace(this.renameFrom, this.renameTo);
    this.delivered.push(data);
    return sseData(data);
  }

  /**
   * The byte path: network chunks in, bytes for the client out. Events are found by their blank
   * line and passed on as they came — no UTF-8 decoding and re-encoding of text that only passes
   * through; only an event that must be looked into (usage, an error, a renamed model, an
   * unusual shape) is decoded, through onEvent. A stream with CR line ends goes to text.
   */
  onChunk(chunk: Uint8Array): Uint8Array | string {
    const bytes = this.rest ? Buffer.concat([this.rest, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.rest = undefined;
    if (this.text || bytes.includes(CR)) return relayEvents(this, (this.text ??= new SseDecoder()).push(bytes));
    const out: Array<Uint8Array | string> = [];
    let start = 0;
    /** start of the run of unchanged events not yet put out */
    let run = 0;
    for (let end = bytes.indexOf(EVENT_END, start); end !== -1; end = bytes.indexOf(EVENT_END, start)) {
      const verdict = this.rawEvent(bytes, start, end);
      if (verdict !== UNCHANGED) {
        if (run < start) out.push(bytes.subarray(run, start));
        if (verdict.length > 0) out.push(verdict);
        run = end + 2;
      }
      start = end + 2;
    }
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
    return { complete: this.done, usage: this.usage, trailer: this.done ? DONE : '' };
  }

  errorEvent(error: GatewayError): string {
    return sseData(JSON.stringify({ error: { message: error.message, type: error.type, param: error.param, code: error.code } }));
  }

  /** Parses the delivered chunks only when needed: a stream the client abandoned. */
  deliveredOutputTokens(): number {
    let text = '';
    for (const data of this.delivered) {
      try {
        text += this.outputText(JSON.parse(typeof data === 'string' ? data : Buffer.from(data).toString('utf8')) as Record<string, unknown>);
      } catch {
        // a malformed upstream event carries no countable text
      }
    }
    return countTextTokens(text);
  }

  /** One event of the byte path, bytes[start, end) without its blank line. */
  private rawEvent(bytes: Buffer, start: number, end: number): typeof UNCHANGED | Uint8Array | string {
    if (this.done || this.failed) return NOTHING;
    // the common shape, one `data:` line; anything else (comments, named events, several lines) as text
    const lineEnd = bytes.indexOf(LF, start);
    if (end - start < DATA_PREFIX.length || bytes.compare(DATA_PREFIX, 0, DATA_PREFIX.length, start, start + DATA_PREFIX.length) !== 0 || lineEnd < end) {
      return relayEvents(this, new SseDecoder().push(bytes.subarray(start, end + 2)));
    }
    let dataStart = start + DATA_PREFIX.length;
    if (bytes[dataStart] === SPACE) dataStart++;
    const data = bytes.subarray(dataStart, end);
    if (data.equals(DONE_DATA)) {
      this.done = true;
      return NOTHING;
    }
    // events that need a look inside: usage, a renamed model, an error (JSON that starts with "error")
    if (this.renameFrom !== null || data.includes(USAGE_OBJECT) || mayBeError(data)) {
      return this.onEvent({ data: data.toString('utf8'), event: undefined, id: undefined });
    }
    this.delivered.push(data);
    return UNCHANGED;
  }
}

/**
 * Could this event's JSON start with "error"? A chunk starts `{"id"` (or another key) in the
 * compact JSON vendors send: two byte compares settle it; other spacing goes to the regex.
 */
function mayBeError(data: Buffer): boolean {
  if (data[0] === OPEN_BRACE && data[1] === QUOTE) return data.length >= 2 + ERROR_KEY.length && data.compare(ERROR_KEY, 0, ERROR_KEY.length, 2, 2 + ERROR_KEY.length) === 0;
  return STARTS_WITH_ERROR.test(data.toString('latin1', 0, Math.min(data.length, 32)));
}

function parseOrNull(data: string): { usage?: unknown; choices?: unknown } | null {
  try {
    return JSON.parse(data) as { usage?: unknown; choices?: unknown };
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
