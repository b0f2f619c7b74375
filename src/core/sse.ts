import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type SseEvent = EventSourceMessage;

/**
 * Incremental SSE decoder over raw bytes. Network chunks split events and even UTF-8
 * characters anywhere: bytes go through a streaming UTF-8 decoder, then the WHATWG parser,
 * and only whole events come out. An event cut off by the end of the stream is dropped.
 */
export class SseDecoder {
  private readonly utf8 = new TextDecoder('utf-8');
  private readonly parser;
  private pending: SseEvent[] = [];

  constructor(maxEventBytes = 16 * 1024 * 1024) {
    this.parser = createParser({
      onEvent: (event) => this.pending.push(event),
      maxBufferSize: maxEventBytes,
    });
  }

  /** Feeds one chunk and returns the events it completed, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    this.parser.feed(this.utf8.decode(chunk, { stream: true }));
    return this.take();
  }

  /** Flushes the UTF-8 decoder at end of stream. */
  end(): SseEvent[] {
    this.parser.feed(this.utf8.decode());
    return this.take();
  }

  private take(): SseEvent[] {
    if (this.pending.length === 0) return EMPTY;
    const events = this.pending;
    this.pending = [];
    return events;
  }
}

const EMPTY: SseEvent[] = [];

/** One `data:` event: a line per line of the data (JSON.stringify output has one; an upstream's may have several). */
export function sseData(data: string): string {
  if (!data.includes('\n')) return `data: ${data}\n\n`;
  return `${data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

/** A named event, as the messages family requires (`event:` line equal to the JSON type). */
export function sseNamed(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}
