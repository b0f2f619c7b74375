import type { IncomingMessage } from 'node:http';
import { WebSocket, type RawData } from 'ws';
import { GatewayError, upstreamUnavailable } from '../core/errors.ts';
import type { Candidate } from '../pipeline/router.ts';
import type { RealtimeCodec, RealtimeHandshake } from '../core/contracts/realtime-codec.ts';
import type { UpstreamDeps } from './deps.ts';

const MAX_ERROR_BODY = 64 * 1024;

export interface UpstreamConnection {
  socket: WebSocket;
  candidate: Candidate;
  handshake: RealtimeHandshake;
  /** frames that arrived before the client was attached, in order */
  early: Array<{ data: RawData; binary: boolean }>;
  /** stops collecting early frames (the session takes over the socket) */
  detach(): void;
}

class Refused extends Error {
  readonly status: number;
  readonly body: Uint8Array;
  readonly headers: IncomingMessage['headers'];
  constructor(status: number, body: Uint8Array, headers: IncomingMessage['headers']) {
    super(`upstream answered ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/**
 * Opens the upstream socket before the client's upgrade, trying the model's providers in order
 * (skipping open circuits, at most MODELGATE_MAX_ATTEMPTS): a provider that refuses or cannot be
 * reached is failed over exactly like an HTTP request before its first byte.
 */
export async function connectUpstream(deps: UpstreamDeps, candidates: Candidate[], signal: AbortSignal): Promise<UpstreamConnection> {
  let last: GatewayError | undefined;
  let attempts = 0;
  const allowed = candidates.filter((c) => c.provider.breaker.allows());
  for (const candidate of allowed.length > 0 ? allowed : candidates.slice(0, 1)) {
    if (attempts++ >= deps.config.upstream.maxAttempts || signal.aborted) break;
    const provider = candidate.provider;
    const codec = provider.adapter.operations.realtime as RealtimeCodec;
    const handshake = codec.handshake({ baseUrl: provider.record.baseUrl, apiKey: provider.record.apiKey, upstreamModel: candidate.upstreamModel, settings: provider.record.settings });
    const label = provider.record.name;
    try {
      const opened = await open(handshake, provider.upstream.timeouts.connectMs, deps.config.realtime.maxFrameBytes, signal);
      provider.breaker.record(true);
      return { ...opened, candidate, handshake };
    } catch (error) {
      if (signal.aborted) {
        provider.breaker.cancelProbe();
        break;
      }
      if (error instanceof Refused) {
        const failure = codec.mapError(error.status, error.body, error.headers);
        provider.breaker.record(!failure.retryable);
        deps.metrics.upstreamFailures.inc({ provider: label, reason: `http_${error.status}` });
        deps.log.warn({ provider: provider.record.id, status: error.status }, 'realtime upstream refused the handshake');
        if (!failure.retryable) throw failure.error;
        last = failure.error;
      } else {
        provider.breaker.record(false);
        const timeout = error instanceof Error && /timed out/i.test(error.message);
        deps.metrics.upstreamFailures.inc({ provider: label, reason: timeout ? 'timeout' : 'connect' });
        deps.log.warn({ provider: provider.record.id, err: (error as Error).message }, 'realtime upstream unreachable');
        last = timeout
          ? upstreamUnavailable('The upstream provider did not accept the realtime connection in time. Retry later.', 504, 'upstream_timeout')
          : upstreamUnavailable('The upstream provider could not be reached. Retry later.', 502, 'upstream_connect');
      }
    }
  }
  throw last ?? upstreamUnavailable('No provider could open this realtime session. Retry later.');
}

function open(handshake: RealtimeHandshake, timeoutMs: number, maxPayload: number, signal: AbortSignal): Promise<Omit<UpstreamConnection, 'candidate' | 'handshake'>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(handshake.url, handshake.protocols, {
      headers: handshake.headers,
      perMessageDeflate: false,
      maxPayload,
      handshakeTimeout: timeoutMs,
      followRedirects: false,
    });
    const early: UpstreamConnection['early'] = [];
    const collect = (data: RawData, binary: boolean) => early.push({ data, binary });
    const abort = () => socket.terminate();
    signal.addEventListener('abort', abort, { once: true });
    socket.on('message', collect);
    socket.once('open', () => {
      signal.removeEventListener('abort', abort);
      // nothing is read until the client is attached; what already arrived waits in `early`
      socket.pause();
      resolve({ socket, early, detach: () => socket.off('message', collect) });
    });
    socket.once('unexpected-response', (request, response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_ERROR_BODY) chunks.push(chunk);
      });
      const done = () => {
        request.destroy();
        reject(new Refused(response.statusCode ?? 502, Buffer.concat(chunks), response.headers));
      };
      response.once('end', done);
      response.once('error', done);
    });
    // stays attached for the socket's life: a late error after settling is harmless, an unheard one would throw
    socket.on('error', (error) => {
      signal.removeEventListener('abort', abort);
      reject(error);
    });
  });
}
