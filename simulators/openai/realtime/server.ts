// GET /v1/realtime on the simulator's HTTP server (its `upgrade` event): the vendor's handshake
// (Bearer key or the `openai-insecure-api-key.` subprotocol, `model` query parameter, the
// generation chosen by `OpenAI-Beta: realtime=v1`), then one SimRealtimeSession per socket.
// Tests read what each connection received and how it closed, and can close it from this side.
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { invalidApiKey, openAIError, type SimulatedError } from '../errors.ts';
import { SimRealtimeSession } from './session.ts';
import type { Generation, Json } from './wire.ts';

export interface SimRealtimeConnection {
  generation: Generation;
  model: string;
  headers: IncomingHttpHeaders;
  /** client events as received (audio payloads replaced by their length); empty when recording is off */
  readonly received: Json[];
  /** the largest send buffer the simulator saw on this socket */
  readonly peakBuffered: number;
  /** resolves when the socket closed, with the code and reason this side saw */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** resolves with the next received client event of `type` (already received ones count) */
  nextEvent(type: string): Promise<Json>;
  /** resolves once this side's send buffer reached `bytes` (the peer stopped reading) */
  bufferedAtLeast(bytes: number): Promise<void>;
  /** stop / resume reading the socket (a slow upstream) */
  pauseReading(): void;
  resumeReading(): void;
  /** the vendor closes the session */
  close(code: number, reason: string): void;
  /** the vendor's connection drops (no close frame) */
  drop(): void;
}

export interface SimRealtimeOptions {
  apiKey: string;
  /** interface generations accepted; a beta handshake otherwise gets close 4000 beta_api_shape_disabled */
  generations: Generation[];
  record: boolean;
}

export interface SimRealtime {
  readonly connections: SimRealtimeConnection[];
  /** resolves with the next connection (or the first one not yet handed out) */
  nextConnection(): Promise<SimRealtimeConnection>;
  closeAll(): void;
}

const KEY_PROTOCOL = 'openai-insecure-api-key.';

export function attachRealtimeSimulator(server: Server, options: SimRealtimeOptions): SimRealtime {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : false) });
  const connections: SimRealtimeConnection[] = [];
  const sockets = new Set<WebSocket>();
  let handedOut = 0;
  let waiters: Array<(c: SimRealtimeConnection) => void> = [];

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'http://sim');
    const refusal = checkHandshake(req, url, options.apiKey);
    if (refusal) return refuse(socket, refusal);
    const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const generation: Generation = /realtime=v1/.test(String(req.headers['openai-beta'] ?? '')) || protocols.includes('openai-beta.realtime-v1') ? 'beta' : 'ga';
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.once('close', () => sockets.delete(ws));
      const accepted = options.generations.includes(generation);
      const connection = track(ws, req, generation, url.searchParams.get('model') ?? '', accepted);
      connections.push(connection);
      const waiter = waiters.shift();
      if (waiter) {
        handedOut++;
        waiter(connection);
      }
      // the vendor switched the beta shape off at GA (protocols.md §2.9, reported)
      if (!accepted) ws.close(4000, `${generation}_api_shape_disabled`);
    });
  });

  function track(ws: WebSocket, req: IncomingMessage, generation: Generation, model: string, start: boolean): SimRealtimeConnection {
    const received: Json[] = [];
    let peakBuffered = 0;
    let eventWaiters: Array<{ type: string; resolve: (e: Json) => void }> = [];
    const taken = new Set<Json>();
    let bufferWaiters: Array<{ bytes: number; resolve: () => void }> = [];
    const session = new SimRealtimeSession(ws, generation, model, {
      received(event) {
        if (options.record) received.push(event);
        const waiter = eventWaiters.find((w) => w.type === event.type);
        if (waiter) {
          eventWaiters = eventWaiters.filter((w) => w !== waiter);
          taken.add(event);
          waiter.resolve(event);
        }
      },
      buffered(amount) {
        if (amount > peakBuffered) peakBuffered = amount;
        const ready = bufferWaiters.filter((w) => amount >= w.bytes);
        if (ready.length === 0) return;
        bufferWaiters = bufferWaiters.filter((w) => amount < w.bytes);
        for (const w of ready) w.resolve();
      },
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.once('close', (code, reason) => {
        session.abort();
        resolve({ code, reason: reason.toString('utf8') });
      });
    });
    ws.on('error', () => undefined);
    ws.on('message', (data, binary) => {
      if (!binary) session.onMessage(data.toString());
    });
    if (start) session.start();
    return {
      generation,
      model,
      headers: req.headers,
      received,
      get peakBuffered() {
        return peakBuffered;
      },
      closed,
      nextEvent(type) {
        const existing = received.find((e) => e.type === type && !taken.has(e));
        if (existing) {
          taken.add(existing);
          return Promise.resolve(existing);
        }
        return new Promise((resolve) => eventWaiters.push({ type, resolve }));
      },
      bufferedAtLeast(bytes) {
        if (peakBuffered >= bytes) return Promise.resolve();
        return new Promise((resolve) => bufferWaiters.push({ bytes, resolve }));
      },
      pauseReading: () => ws.pause(),
      resumeReading: () => ws.resume(),
      close: (code, reason) => ws.close(code, reason),
      drop: () => ws.terminate(),
    };
  }

  return {
    connections,
    nextConnection() {
      if (handedOut < connections.length) return Promise.resolve(connections[handedOut++]!);
      return new Promise((resolve) => waiters.push(resolve));
    },
    closeAll() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      waiters = [];
    },
  };
}

function checkHandshake(req: IncomingMessage, url: URL, apiKey: string): SimulatedError | undefined {
  if (url.pathname !== '/v1/realtime') return openAIError(404, `Invalid URL (GET ${url.pathname})`, 'invalid_request_error');
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const key = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? protocols.find((p) => p.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length);
  if (key !== apiKey) return invalidApiKey();
  if (!url.searchParams.get('model')) return openAIError(400, "Missing required parameter: 'model'.", 'invalid_request_error', 'model', 'missing_required_parameter');
  return undefined;
}

function refuse(socket: Duplex, error: SimulatedError): void {
  const body = JSON.stringify(error.envelope);
  socket.end(`HTTP/1.1 ${error.status} Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
