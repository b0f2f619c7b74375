import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { GatewayError, invalidRequest, notFound, serverError } from '../core/errors.ts';
import { newRequestId } from '../core/ids.ts';
import { STATUS_REASONS } from '../core/status-reasons.ts';
import { openaiErrorDialect } from '../dialects/openai/error-envelope.ts';
import { chooseProtocol } from '../dialects/openai/realtime-handshake.ts';
import type { RealtimeDeps } from './deps.ts';
import { admit, type Admission } from './handshake.ts';
import { REALTIME_ENDPOINT } from './record.ts';
import { RealtimeSession } from './session.ts';
import { connectUpstream, type UpstreamConnection } from './upstream.ts';

const USABLE_ID = /^[\w.:-]{1,128}$/;
const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;

/**
 * The server's `upgrade` listener: `GET /v1/realtime?model=…` on the HTTP port. Admission and
 * the upstream connection happen before the client's upgrade, so every refusal is an HTTP
 * answer with the OpenAI error envelope (401, 402, 404, 429, 502…) and the client only gets its
 * socket once the upstream one is open.
 */
export function realtimeUpgradeHandler(deps: RealtimeDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: deps.config.realtime.maxFrameBytes,
    handleProtocols: (offered) => chooseProtocol(offered),
  });
  const correlation = new WeakMap<IncomingMessage, string>();
  wss.on('headers', (headers, req) => {
    const id = correlation.get(req);
    if (id) headers.push(`x-request-id: ${id}`);
  });
  return (req, socket, head) => {
    // a client that resets while we check it must not take the process down
    socket.on('error', () => undefined);
    upgrade(deps, wss, correlation, req, socket, head).catch((error: unknown) => {
      deps.log.error({ err: error }, 'realtime upgrade failed');
      refuse(deps, socket, serverError(), newRequestId());
    });
  };
}

/** A plain HTTP GET of the realtime path (no upgrade) is told what to do instead of a bare 404. */
export function registerRealtimeRoute(app: FastifyInstance): void {
  app.get(REALTIME_ENDPOINT, async (_request, reply) => {
    reply.header('upgrade', 'websocket');
    throw new GatewayError({ status: 426, type: 'invalid_request_error', code: 'upgrade_required', message: `${REALTIME_ENDPOINT} is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket) and ?model=<realtime model>.` });
  });
}

async function upgrade(deps: RealtimeDeps, wss: WebSocketServer, correlation: WeakMap<IncomingMessage, string>, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const requestId = newRequestId();
  const sent = req.headers['x-request-id'];
  const correlationId = typeof sent === 'string' && USABLE_ID.test(sent) ? sent : requestId;
  const url = new URL(req.url ?? '/', 'http://gateway');
  if (url.pathname !== REALTIME_ENDPOINT) {
    const hint = url.pathname === '/realtime' ? ` The base URL must include /v1: connect to ${REALTIME_ENDPOINT}?model=….` : '';
    return refuse(deps, socket, notFound(`There is no WebSocket endpoint at ${url.pathname}.${hint}`, null, hint ? 'missing_v1_prefix' : 'unknown_path'), correlationId);
  }
  const malformed = malformedUpgrade(req);
  if (malformed) return refuse(deps, socket, invalidRequest(malformed, null, 'invalid_websocket_handshake'), correlationId);
  if (!deps.ready) {
    return refuse(deps, socket, new GatewayError({ status: 503, type: 'server_error', message: 'The gateway is not ready (starting or shutting down). Retry shortly.', code: 'not_ready', retryAfter: 1 }), correlationId);
  }

  const gone = new AbortController();
  const onGone = () => gone.abort();
  socket.once('close', onGone);
  let admission: Admission;
  let upstream: UpstreamConnection;
  try {
    admission = await admit(deps, req, url, requestId);
  } catch (error) {
    socket.off('close', onGone);
    return refuse(deps, socket, asGatewayError(deps, error), correlationId);
  }
  try {
    upstream = await connectUpstream(deps, admission.candidates, gone.signal);
  } catch (error) {
    socket.off('close', onGone);
    admission.billing.close();
    admission.releaseSlot();
    return refuse(deps, socket, asGatewayError(deps, error), correlationId);
  }
  socket.off('close', onGone);
  admission.identity.providerId = upstream.candidate.provider.record.id;
  const session = new RealtimeSession(deps, admission, upstream);
  if (gone.signal.aborted || socket.destroyed) return session.abandon();

  let attached = false;
  socket.once('close', () => {
    if (!attached) session.abandon();
  });
  correlation.set(req, correlationId);
  wss.handleUpgrade(req, socket, head, (client) => {
    attached = true;
    session.attach(client);
  });
}

/** What ws would refuse with a bare 400: checked first so that a refused upgrade costs nothing. */
function malformedUpgrade(req: IncomingMessage): string | undefined {
  if (req.method !== 'GET') return 'A realtime session is opened with a GET WebSocket upgrade.';
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'Missing "Upgrade: websocket".';
  if (!WEBSOCKET_KEY.test(req.headers['sec-websocket-key'] ?? '')) return 'Missing or invalid Sec-WebSocket-Key.';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Unsupported Sec-WebSocket-Version (13 is required).';
  return undefined;
}

function asGatewayError(deps: RealtimeDeps, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  deps.log.error({ err: error }, 'realtime handshake failed');
  return serverError();
}

/** An HTTP answer on the raw socket instead of the upgrade, then the connection is closed. */
function refuse(deps: RealtimeDeps, socket: Duplex, error: GatewayError, correlationId: string): void {
  deps.metrics.requests.inc({ endpoint: REALTIME_ENDPOINT, status: String(error.status) });
  deps.log.info({ reqId: correlationId, endpoint: REALTIME_ENDPOINT, status: error.status, error: error.type, code: error.code }, 'realtime handshake refused');
  if (socket.destroyed || !socket.writable) return;
  const body = JSON.stringify(openaiErrorDialect.render(error));
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_REASONS[error.status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${correlationId}`,
    'Connection: close',
  ];
  if (error.retryAfter !== undefined) lines.push(`Retry-After: ${error.retryAfter}`);
  for (const [name, value] of Object.entries(error.headers ?? {})) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
