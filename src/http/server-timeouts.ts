import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerTimeouts } from '../config/env.ts';

/**
 * Fastify's options for slow or silent clients. Node's `headersTimeout` and `requestTimeout` cover
 * receiving the request only (a long stream answering it is not cut); they are checked every
 * `connectionsCheckingInterval`, a quarter of the shorter one (Node's own 30 s would let a short
 * timeout run long). `connectionTimeout` closes a socket silent both ways (a client that stopped
 * reading its answer); WebSocket upgrades clear it on their socket (the ws library), so realtime
 * sessions keep their own idle rules.
 */
export function serverTimeoutOptions(timeouts: ServerTimeouts) {
  const { headersTimeoutMs, requestTimeoutMs, socketIdleTimeoutMs } = timeouts;
  return {
    connectionTimeout: socketIdleTimeoutMs,
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4))),
    },
  };
}

/**
 * Node's timeouts start with a request's first byte: a connection that never sends one would only
 * meet the idle timeout, minutes later. Closed once `ms` passed without a byte read (one timer per
 * connection, none per request).
 */
export function closeSilentConnections(server: Server, ms: number): void {
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, ms);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
