import { Pool, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { UpstreamBody } from './upstream-body.ts';

export interface Timeouts {
  connectMs: number;
  /** from sending the request to the response headers (a stream's headers come with its first byte) */
  firstByteMs: number;
  /** longest silence between two body chunks */
  idleMs: number;
}

export interface UpstreamTarget {
  /** pool identity: one keep-alive pool per provider and base URL */
  poolKey: string;
  baseUrl: string;
  maxConnections: number;
  timeouts: Timeouts;
}

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

/** A transport-level failure: nothing came back, or the connection broke before headers. */
export class UpstreamTransportError extends Error {
  readonly kind: 'connect' | 'timeout' | 'network';
  /** the socket error's code, when there was one */
  readonly code: string;
  constructor(kind: 'connect' | 'timeout' | 'network', message: string, code = '') {
    super(message);
    this.name = 'UpstreamTransportError';
    this.kind = kind;
    this.code = code;
  }
}

/**
 * Text, bytes, or an iterable that is not its own iterator (each `for await` starts afresh, as
 * multipart bodies do); a generator or a stream can be read once only.
 */
function replayable(body: UpstreamRequest['body']): boolean {
  return body === undefined || typeof body === 'string' || body instanceof Uint8Array || !('next' in body);
}

/** Socket errors of a kept-alive connection the upstream closed as the request went out. */
const CLOSED_UNDER_US = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export interface UpstreamRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | AsyncIterable<Uint8Array>;
  signal: AbortSignal;
  /** a longer wait for response headers than the provider's (slow operations such as images) */
  firstByteMs?: number;
}

interface PoolEntry {
  baseUrl: string;
  origin: string;
  basePath: string;
  pool: Pool;
}

/**
 * Sends requests to upstream vendors over undici keep-alive pools (one per provider).
 * The base URL may carry a path (`https://host/v1`): request paths are appended to it.
 */
export class UpstreamClient {
  private readonly pools = new Map<string, PoolEntry>();

  /**
   * Resolves with the status and headers as soon as they arrive; the body follows as it comes.
   * Uses undici's dispatch with a small handler rather than `request()`, whose Readable body and
   * async-resource bookkeeping were the largest part of the relay's cost.
   */
  send(target: UpstreamTarget, request: UpstreamRequest): Promise<UpstreamResponse> {
    const sent = this.dispatch(target, request);
    if (!replayable(request.body)) return sent;
    // An upstream closes an idle keep-alive connection on its own clock: a request that went out on
    // it just then fails before any answer, almost always unread by the vendor. Sent once more,
    // on a fresh connection (a body that can be read only once fails over instead).
    return sent.catch((error: unknown) => {
      if (!(error instanceof UpstreamTransportError) || !CLOSED_UNDER_US.has(error.code) || request.signal.aborted) throw error;
      return this.dispatch(target, request);
    });
  }

  private dispatch(target: UpstreamTarget, request: UpstreamRequest): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      const entry = this.poolFor(target);
      const handler = new ResponseHandler(request.signal, resolve, reject);
      try {
        request.signal.addEventListener('abort', handler, { once: true });
        entry.pool.dispatch(
          {
            method: request.method as Dispatcher.HttpMethod,
            path: resolvePath(entry, request.path),
            headers: request.headers,
            body: request.body as Dispatcher.DispatchOptions['body'],
            headersTimeout: Math.max(target.timeouts.firstByteMs, request.firstByteMs ?? 0),
            bodyTimeout: target.timeouts.idleMs,
          },
          handler,
        );
      } catch (error) {
        handler.done();
        reject(classify(error));
      }
    });
  }

  /** Drops the pool of a provider that changed its base URL or was removed. */
  forget(poolKey: string): void {
    const entry = this.pools.get(poolKey);
    if (!entry) return;
    this.pools.delete(poolKey);
    void entry.pool.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((e) => e.pool.destroy().catch(() => undefined)));
  }

  private poolFor(target: UpstreamTarget): PoolEntry {
    const existing = this.pools.get(target.poolKey);
    if (existing && existing.baseUrl === target.baseUrl) return existing;
    if (existing) this.forget(target.poolKey);
    const url = new URL(target.baseUrl);
    const entry: PoolEntry = {
      baseUrl: target.baseUrl,
      origin: url.origin,
      basePath: url.pathname.replace(/\/+$/, ''),
      pool: new Pool(url.origin, {
        connections: target.maxConnections,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: target.timeouts.connectMs },
      }),
    };
    this.pools.set(target.poolKey, entry);
    return entry;
  }
}

/**
 * undici's dispatch handler for one request, and the listener of the client's abort signal: a
 * class, so that a request allocates one object rather than a closure per callback.
 */
class ResponseHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private body: UpstreamBody | undefined;
  private readonly signal: AbortSignal;
  private readonly resolve: (response: UpstreamResponse) => void;
  private readonly reject: (error: unknown) => void;

  constructor(signal: AbortSignal, resolve: (response: UpstreamResponse) => void, reject: (error: unknown) => void) {
    this.signal = signal;
    this.resolve = resolve;
    this.reject = reject;
  }

  /** the client left: the upstream request is abandoned */
  handleEvent(): void {
    this.controller?.abort(this.signal.reason);
  }

  done(): void {
    this.signal.removeEventListener('abort', this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    this.body = new UpstreamBody(controller);
    this.resolve({ status: statusCode, headers, body: this.body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.done();
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.done();
    if (this.body) this.body.fail(error);
    else this.reject(classify(error));
  }
}

/**
 * A path is appended to the base URL's path; an absolute URL (a vendor's download link) is
 * accepted only on the provider's own origin, so the provider's credentials go nowhere else.
 */
function resolvePath(entry: PoolEntry, path: string): string {
  if (!/^https?:\/\//i.test(path)) return entry.basePath + path;
  const url = new URL(path);
  if (url.origin !== entry.origin) throw new UpstreamTransportError('network', `refusing to send provider credentials to another origin (${url.origin})`);
  return url.pathname + url.search;
}

/** Maps undici and socket errors to the three transport failures the router reasons about. */
export function classify(error: unknown): Error {
  if (error instanceof UpstreamTransportError) return error;
  const code = (error as { code?: string } | null)?.code ?? '';
  const name = (error as { name?: string } | null)?.name ?? '';
  if (name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return error as Error;
  // a signal on a timer (a health probe's, a video poll's) aborts with a TimeoutError, not an AbortError
  if (name === 'TimeoutError') return new UpstreamTransportError('timeout', 'upstream timed out');
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new UpstreamTransportError('connect', 'connect timeout');
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new UpstreamTransportError('timeout', 'upstream timed out');
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new UpstreamTransportError('connect', `cannot connect (${code})`);
  }
  return new UpstreamTransportError('network', `upstream connection failed${code ? ` (${code})` : ''}`, code);
}
