// Small vendor-neutral helpers shared by the vendor simulators (real HTTP servers used by tests,
// demo mode and the benchmark). Kept deliberately tiny: node:http (node:http2 over TLS), no framework.
import { createServer, type IncomingHttpHeaders, type Server, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { constants as http2, createSecureServer, type Http2ServerRequest, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sseData } from '../../src/core/sse.ts';

export type JsonBodyResult =
  | { ok: true; body: unknown }
  | { ok: false; reason: 'too-large' | 'invalid-json' };

/**
 * Reads the whole request body and parses it as JSON. An empty body parses as `undefined`.
 * Past `limitBytes` the rest is drained and discarded rather than the socket being cut, so the
 * client still receives the 413 answer instead of a write error.
 */
export function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<JsonBodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > limitBytes;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limitBytes) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (tooLarge) return resolve({ ok: false, reason: 'too-large' });
      if (size === 0) return resolve({ ok: true, body: undefined });
      try {
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
        resolve({ ok: true, body: JSON.parse(text) as unknown });
      } catch {
        resolve({ ok: false, reason: 'invalid-json' });
      }
    });
  });
}

/** Sends a complete JSON response with an exact Content-Length. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (res.destroyed) return;
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': payload.length,
  });
  res.end(payload);
}

/** Commits the status and headers of an SSE response; the first event write sends them. */
export function startEventStream(res: ServerResponse, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    // HTTP/2 forbids connection-specific headers
    ...(!isHttp2(res.req) && { connection: 'keep-alive' }),
  });
}

/** Whether a request came over HTTP/2 (a simulator served over TLS: `serveSimulator`'s `tls`). */
export function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
}

/**
 * A request whose connection dies before any answer: the socket destroyed over HTTP/1.1; over
 * HTTP/2 only this request's stream is reset (the connection carries other requests).
 */
export function dropConnection(req: IncomingMessage): void {
  if (isHttp2(req)) (req as unknown as Http2ServerRequest).stream.close(http2.NGHTTP2_INTERNAL_ERROR);
  else req.socket.destroy();
}

/**
 * Writes one `data:` event in a single write (one chunk on the wire), always ending with the
 * blank line that dispatches it. `data` must not contain newlines (JSON.stringify output never does).
 */
export function writeSseData(res: ServerResponse, data: string, onFlushed?: () => void): boolean {
  if (res.destroyed) return false;
  return res.write(sseData(data), onFlushed);
}

/** Waits `ms` milliseconds; no timer at all when `ms <= 0`. Rejects with an AbortError on abort. */
export async function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms > 0) await sleep(ms, undefined, { signal });
}

/** Type guard for a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** 32-bit FNV-1a hash of a string (UTF-16 code units): a cheap, stable seed for deterministic output. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Seeded PRNG (mulberry32): returns floats in [0, 1); the same seed always gives the same sequence. */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One request as a simulator received it (body parsed, when it was JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** What a scenario-driven simulator exposes to tests, demo mode and the benchmark. */
export interface SimulatorControls<Scenario, Recorded> {
  baseUrl: string;
  port: number;
  /** connections accepted so far (over HTTP/2 many requests share one) */
  readonly connections: number;
  /**
   * What a vendor's load balancer does now and then: over HTTP/2 a GOAWAY on every connection (the
   * streams under way finish, new requests need a new connection); over HTTP/1.1 its idle
   * keep-alive connections closed.
   */
  rotateConnections(): void;
  readonly requests: Recorded[];
  enqueue(...scenarios: Scenario[]): void;
  reset(): void;
  close(): Promise<void>;
}

/** A certificate and its key, PEM: the simulator then serves HTTPS, HTTP/2 or HTTP/1.1 as the client offers (ALPN). */
export interface SimulatorTls {
  key: string | Buffer;
  cert: string | Buffer;
}

/**
 * Listens with a simulator's request handler on a real socket. A handler that throws answers
 * `failure(error)` (or drops an answer already under way); `close` aborts `shutdown` (pending
 * delays and streams) and every open connection. `attach` adds to the server before it listens
 * (e.g. WebSocket upgrades) and returns what to close with it. With `tls` it serves HTTPS as vendors
 * do, HTTP/2 to a client that offers it: the handler then gets node:http2's compatibility request
 * and response, which answer to the same calls.
 */
export async function serveSimulator<Scenario, Recorded>(
  listen: { host?: string | undefined; port?: number | undefined; basePath: string; tls?: SimulatorTls | undefined },
  state: { queue: Scenario[]; requests: Recorded[]; shutdown: AbortController },
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  failure: (error: unknown) => { status: number; envelope: unknown },
  attach: (server: Server) => () => void = () => () => undefined,
): Promise<SimulatorControls<Scenario, Recorded>> {
  const host = listen.host ?? '127.0.0.1';
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (state.shutdown.signal.aborted || res.headersSent) {
        res.destroy();
        return;
      }
      const answer = failure(error);
      sendJson(res, answer.status, answer.envelope);
    });
  };
  // node:http2's compatibility API mirrors node:http's request and response for these handlers
  const server = (listen.tls ? createSecureServer({ ...listen.tls, allowHTTP1: true }, onRequest as never) : createServer(onRequest)) as Server;
  // a TLS server has no closeAllConnections: its sockets (HTTP/1.1 and HTTP/2 alike) are ended by hand
  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  if (listen.tls) {
    server.on('session', (session: ServerHttp2Session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
  }
  let connections = 0;
  server.on(listen.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections++;
    if (!listen.tls) return;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const closeAttached = attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `${listen.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}${listen.basePath}`,
    port,
    get connections() {
      return connections;
    },
    rotateConnections() {
      for (const session of sessions) session.close();
      if (!listen.tls) server.closeIdleConnections();
    },
    requests: state.requests,
    enqueue: (...scenarios) => void state.queue.push(...scenarios),
    reset() {
      state.queue.length = 0;
      state.requests.length = 0;
    },
    close() {
      state.shutdown.abort();
      closeAttached();
      return new Promise((resolve) => {
        server.close(() => resolve());
        if (listen.tls) for (const socket of sockets) socket.destroy();
        else server.closeAllConnections();
      });
    },
  };
}
