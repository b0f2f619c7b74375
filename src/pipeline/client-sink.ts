import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * The client side of a streamed answer: status and headers go out with the first event, then
 * text as it comes. A slow client pauses the relay (and so the upstream) instead of growing a buffer.
 */
export class StreamSink {
  private readonly res: ServerResponse;
  private lastWrite = 0;
  /** an SSE comment; whitespace in a stream that is not SSE (a JSON array allows it between its elements) */
  private keepAliveText = ': keep-alive\n\n';
  committed = false;
  /** what hold() kept for end() */
  private held: Array<string | Uint8Array> | undefined;
  /** links in the KeepAliveTicker's list of open streams (undefined while not in it) */
  prevOpen: StreamSink | undefined = undefined;
  nextOpen: StreamSink | undefined = undefined;

  constructor(res: ServerResponse) {
    this.res = res;
  }

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** `contentType`: the stream is not SSE (Google's JSON array) */
  commit(headers: Record<string, string>, contentType?: string): void {
    if (contentType) this.keepAliveText = '\n';
    this.res.writeHead(200, contentType ? { ...SSE_HEADERS, ...headers, 'content-type': contentType } : { ...SSE_HEADERS, ...headers });
    this.committed = true;
    this.lastWrite = Date.now();
  }

  /**
   * Writes; when the socket buffer is full, returns a promise that settles once it drains or
   * the client leaves (no promise, and no turn of the event loop, when there is room).
   */
  write(text: string | Uint8Array): Promise<unknown> | undefined {
    if (text.length === 0 || this.gone) return undefined;
    this.lastWrite = Date.now();
    if (this.res.write(text)) return undefined;
    return Promise.race([once(this.res, 'drain'), once(this.res, 'close')]);
  }

  /**
   * Keeps text for end() to write with the stream's last bytes: once the upstream has sent all it
   * will, what is left goes out in one write (one system call and one TCP segment fewer a stream
   * whose end came with its last events — the whole stream, when it came at once).
   */
  hold(text: string | Uint8Array): void {
    if (text.length === 0 || this.gone) return;
    (this.held ??= []).push(text);
  }

  /**
   * The last bytes, after what hold() kept: written to the corked socket, which end() uncorks, so
   * they leave in one writev without being copied into one buffer first (that copy was most of
   * the event loop's 64-KB Buffer pools, ~550 a second on a saturated streamed core). The socket
   * is corked, not the response: a corked response gathers its chunks for its own uncork, which
   * end() does not call (they went out after the answer's end).
   */
  end(text = ''): void {
    if (this.gone) return;
    const held = this.held;
    this.held = undefined;
    if (held) {
      this.res.socket?.cork();
      for (const part of held) this.res.write(part);
    }
    this.res.end(text);
  }

  /** SSE comment that keeps proxies from closing a stream the upstream keeps silent for long. */
  keepAlive(now: number, idleMs: number): void {
    if (this.committed && !this.gone && now - this.lastWrite >= idleMs) {
      this.lastWrite = now;
      this.res.write(this.keepAliveText);
    }
  }
}

/**
 * One interval for every open stream, instead of a timer per stream. The open sinks form a list
 * linked through the sinks themselves: a Set churned by every stream (one add and one delete per
 * request) reallocates its hash table every few dozen streams, and each obsolete table keeps a
 * link to its successor — once one is old, the scavenger keeps every later one and promotes it
 * (≈ 87 KB/s of dead tables at 1,100 streams/s until the next full GC).
 */
export class KeepAliveTicker {
  private head: StreamSink | undefined;
  private count = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(idleMs = 15_000) {
    this.timer = setInterval(() => {
      const now = Date.now();
      for (let sink = this.head; sink; sink = sink.nextOpen) sink.keepAlive(now, idleMs);
    }, Math.max(1000, Math.floor(idleMs / 3)));
    this.timer.unref();
  }

  add(sink: StreamSink): void {
    if (sink.prevOpen || this.head === sink) return;
    sink.nextOpen = this.head;
    if (this.head) this.head.prevOpen = sink;
    this.head = sink;
    this.count++;
  }

  delete(sink: StreamSink): void {
    if (!sink.prevOpen && this.head !== sink) return;
    if (sink.prevOpen) sink.prevOpen.nextOpen = sink.nextOpen;
    else this.head = sink.nextOpen;
    if (sink.nextOpen) sink.nextOpen.prevOpen = sink.prevOpen;
    sink.prevOpen = undefined;
    sink.nextOpen = undefined;
    this.count--;
  }

  get size(): number {
    return this.count;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
