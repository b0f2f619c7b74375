import type { Dispatcher } from 'undici';
import { GatewayError } from '../core/errors.ts';

/** Past this many unread bytes the upstream connection is paused until the reader catches up. */
const HIGH_WATER_BYTES = 64 * 1024;
/** the largest whole answer read into memory when the caller names no smaller limit */
const DEFAULT_BODY_LIMIT = 256 * 1024 * 1024;

type Waiter = { resolve(result: IteratorResult<Uint8Array>): void; reject(error: unknown): void };

/**
 * An upstream response body fed straight by undici's dispatch handler: chunks wait in an array
 * until read, by `for await` (streams) or all at once (`readAll`, JSON answers). This replaces
 * undici's `request()` body, a Node Readable with its async iterator: relaying through it cost
 * a bare relay about a quarter of its CPU per request.
 */
export class UpstreamBody implements AsyncIterable<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private queuedBytes = 0;
  private receivedBytes = 0;
  private ended = false;
  private failure: Error | undefined;
  private destroyed = false;
  private waiter: Waiter | undefined;
  /** readAll's size limit (a streamed body has none) and its waiter */
  private limit = Infinity;
  private whole: { resolve(bytes: Uint8Array): void; reject(error: unknown): void } | undefined;
  private readonly controller: Dispatcher.DispatchController;

  constructor(controller: Dispatcher.DispatchController) {
    this.controller = controller;
  }

  // ------------------------------------------------------------- fed by the dispatch handler

  push(chunk: Uint8Array): void {
    if (this.destroyed || this.failure !== undefined) return;
    this.receivedBytes += chunk.byteLength;
    if (this.receivedBytes > this.limit) {
      this.tooLarge();
      return;
    }
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ value: chunk, done: false });
      return;
    }
    this.chunks.push(chunk);
    this.queuedBytes += chunk.byteLength;
    // readAll keeps everything anyway: pausing would only slow it down
    if (this.whole === undefined && this.queuedBytes > HIGH_WATER_BYTES && !this.controller.paused) this.controller.pause();
  }

  end(): void {
    if (this.destroyed || this.failure !== undefined) return;
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve({ value: undefined, done: true });
    this.settleWhole();
  }

  fail(error: Error): void {
    if (this.ended || this.failure !== undefined) return;
    this.failure = error;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(error);
    this.whole?.reject(error);
    this.whole = undefined;
  }

  // ------------------------------------------------------------- read by the pipeline

  /** The upstream has sent its whole body: what is left to read is queued here, read without waiting. */
  get complete(): boolean {
    return this.ended;
  }

  /** Stops reading: a body not read to its end closes its upstream request. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.chunks.length = 0;
    if (!this.ended && this.failure === undefined && !this.controller.aborted) this.controller.abort(new Error('upstream body discarded'));
  }

  /**
   * The whole body in one buffer; more than `limit` bytes fail with 502 upstream_too_large (a
   * misbehaving upstream must not exhaust memory).
   */
  readAll(limit = DEFAULT_BODY_LIMIT): Promise<Uint8Array> {
    this.limit = limit;
    if (this.receivedBytes > limit) this.tooLarge();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.controller.paused) this.controller.resume();
    return new Promise((resolve, reject) => {
      this.whole = { resolve, reject };
      if (this.ended) this.settleWhole();
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: () => this.next(),
      return: () => {
        this.destroy();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /** Like a Readable's read(): whatever arrived since the last call, as one chunk. */
  private next(): Promise<IteratorResult<Uint8Array>> {
    if (this.chunks.length > 0) {
      const chunk = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.chunks.length = 0;
      this.queuedBytes = 0;
      if (this.controller.paused) this.controller.resume();
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended || this.destroyed) return Promise.resolve({ value: undefined, done: true });
    if (this.controller.paused) this.controller.resume();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private tooLarge(): void {
    const error = new GatewayError({ status: 502, type: 'server_error', message: 'The upstream answer was too large.', code: 'upstream_too_large' });
    this.fail(error);
    this.controller.abort(error);
  }

  private settleWhole(): void {
    const whole = this.whole;
    if (!whole || !this.ended) return;
    this.whole = undefined;
    const parts = this.chunks;
    whole.resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    this.chunks.length = 0;
    this.queuedBytes = 0;
  }
}
