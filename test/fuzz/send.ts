// Renders a case to bytes and sends it to the gateway; a realtime script is played on a WebSocket.
import { makeAudio } from '../../simulators/_kit/media/audio.ts';
import { makePng } from '../../simulators/_kit/media/png.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { WebSocket } from 'ws';
import type { Body, FuzzRequest, MultipartPart, RealtimeScript } from './request.ts';
import type { World } from './world.ts';

/** A bound on one answer: only a gateway that never answers reaches it. */
const ANSWER_BOUND_MS = 60_000;

export interface Answer {
  /** 0: the connection failed without an HTTP answer */
  status: number;
  text: string;
  requestId: string | null;
  contentType: string;
  failure?: string;
}

const WAV = makeAudio('wav', 0.5);
const PNG = makePng(256, 256, 7);
const BOUNDARY = 'fuzz-boundary-7f3a';

function fixture(value: Exclude<MultipartPart['value'], string>): Buffer {
  if (value.fixture === 'wav') return WAV;
  if (value.fixture === 'png') return PNG;
  return Buffer.alloc(value.bytes ?? 1000, 0x5a);
}

function multipart(parts: MultipartPart[], breakage: Extract<Body, { kind: 'multipart' }>['breakage']): { bytes: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const head = `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${part.contentType ? `Content-Type: ${part.contentType}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), typeof part.value === 'string' ? Buffer.from(part.value) : fixture(part.value), Buffer.from('\r\n'));
  }
  if (breakage !== 'no-closing') chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  let bytes = Buffer.concat(chunks);
  if (breakage === 'truncated') bytes = bytes.subarray(0, Math.floor(bytes.length / 2));
  const contentType = breakage === 'no-boundary' ? 'multipart/form-data' : `multipart/form-data; boundary=${breakage === 'wrong-boundary' ? 'another-boundary' : BOUNDARY}`;
  return { bytes, contentType };
}

function render(body: Body): { bytes?: Buffer | string; contentType?: string } {
  switch (body.kind) {
    case 'none':
      return {};
    case 'json':
      return { bytes: JSON.stringify(body.value), contentType: 'application/json' };
    case 'text':
      return { bytes: body.text, contentType: body.contentType };
    case 'deep': {
      const close = body.bracket === '[' ? ']' : '}';
      return { bytes: `${body.prefix}${body.bracket.repeat(body.depth)}1${close.repeat(body.depth)}${body.suffix}`, contentType: 'application/json' };
    }
    case 'multipart':
      return multipart(body.parts, body.breakage);
  }
}

export function fillPath(world: World, path: string): string {
  return path.replaceAll('{sandbox}', world.accounts.sandbox.accountId).replaceAll('{sandboxKey}', world.sandboxKeyId).replaceAll('{consoleKey}', world.customer.keyId);
}

function credentials(world: World, request: FuzzRequest): Record<string, string> {
  const keyOf = (key: string): Record<string, string> =>
    request.dialect === 'messages' ? { 'x-api-key': key } : request.dialect === 'google' ? { 'x-goog-api-key': key } : { authorization: `Bearer ${key}` };
  const origin = { origin: world.tg.origin };
  switch (request.principal) {
    case 'exact':
    case 'failing':
    case 'broken':
      return keyOf(world.accounts[request.principal].key);
    case 'admin':
      return { authorization: `Bearer ${ADMIN_TOKEN}` };
    case 'console-customer':
    case 'console-operator': {
      const client = request.principal === 'console-customer' ? world.customer : world.operator;
      return { ...origin, cookie: client.cookie ?? '', 'x-csrf-token': client.csrf ?? '' };
    }
    case 'none':
      return request.route.includes('/console/') ? origin : {};
    case 'wrong-key':
      return request.route.includes('/console/') ? { ...origin, cookie: 'mg_session=forged' } : keyOf('sk-not-a-real-key-0000');
  }
}

export async function send(world: World, request: FuzzRequest): Promise<Answer> {
  const { bytes, contentType } = render(request.body);
  const headers: Record<string, string> = { ...(contentType && { 'content-type': contentType }), ...credentials(world, request), ...request.headers };
  try {
    const res = await fetch(world.tg.origin + fillPath(world, request.path), {
      method: request.method,
      headers,
      ...(bytes !== undefined && { body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes) }),
      signal: AbortSignal.timeout(ANSWER_BOUND_MS),
    });
    const text = await res.text();
    return { status: res.status, text, requestId: res.headers.get('x-request-id'), contentType: res.headers.get('content-type') ?? '' };
  } catch (error) {
    return { status: 0, text: '', requestId: null, contentType: '', failure: error instanceof Error ? `${error.name}: ${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error) };
  }
}

export interface RealtimeOutcome {
  /** the handshake's HTTP status when it was refused */
  refused?: number;
  closeCode?: number;
  /** text frames the gateway sent that were not JSON objects */
  unparsable: string[];
  errors: Array<Record<string, unknown>>;
  failure?: string;
}

/**
 * Plays a script: frames, then a valid `session.update` whose answer (or a close) shows the gateway
 * handled every frame before it; then a normal close.
 */
export function play(world: World, script: RealtimeScript): Promise<RealtimeOutcome> {
  const url = `${world.tg.origin.replace('http', 'ws')}/v1/realtime?model=${encodeURIComponent(script.model)}`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${world.accounts.broken.key}` }, perMessageDeflate: false });
  const outcome: RealtimeOutcome = { unparsable: [], errors: [] };
  return new Promise((resolve) => {
    const bound = setTimeout(() => {
      outcome.failure = `no session.updated nor close within ${ANSWER_BOUND_MS} ms`;
      ws.terminate();
    }, ANSWER_BOUND_MS);
    const finish = () => {
      clearTimeout(bound);
      resolve(outcome);
    };
    ws.on('error', () => undefined);
    ws.once('unexpected-response', (req, res) => {
      outcome.refused = res.statusCode ?? 0;
      req.destroy();
      finish();
    });
    ws.once('open', () => {
      for (const frame of script.frames) ws.send('text' in frame ? frame.text : Buffer.alloc(frame.binary, 1), { binary: !('text' in frame) });
      ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', instructions: 'fuzz sentinel' } }));
    });
    ws.on('message', (data, binary) => {
      if (binary) return;
      let event: Record<string, unknown> | undefined;
      try {
        const value: unknown = JSON.parse(data.toString());
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) event = value as Record<string, unknown>;
      } catch {
        // counted below
      }
      if (!event) {
        outcome.unparsable.push(data.toString().slice(0, 200));
        return;
      }
      if (event.type === 'error') outcome.errors.push(event);
      if (event.type === 'session.updated') ws.close(1000);
    });
    ws.once('close', (code) => {
      outcome.closeCode = code;
      finish();
    });
  });
}
