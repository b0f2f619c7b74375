// Realtime clients for the test suites: the official SDK's WebSocket classes (GA and beta) and a
// raw `ws` client for what the SDK does not do (subprotocol auth, pausing, odd frames), plus an
// event log to wait on events instead of sleeping.
import assert from 'node:assert/strict';
import { connect, type NetConnectOpts } from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS as BetaRealtimeWS } from 'openai/beta/realtime/ws';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { WebSocket, type ClientOptions } from 'ws';
import type { TestGateway } from './gateway.ts';

export const REALTIME_MODELS = ['gpt-realtime', 'gpt-4o-mini-realtime-preview'];

export type RealtimeEvent = { type: string; [field: string]: any };

/**
 * The SDKs always dial `wss://` (they refuse anything else); the test gateway listens on plain
 * loopback, so only the TCP connection is made plain. The handshake, framing and events above it
 * are the SDK's own code.
 */
export const plainTcp: ClientOptions = { createConnection: ((options: NetConnectOpts & { host?: string; port?: number }) => connect(options.port!, options.host!)) as ClientOptions['createConnection'] };

/** Every event a socket received, with waits for the next one of a type. */
export class EventLog {
  readonly events: RealtimeEvent[] = [];
  private readonly taken = new Set<RealtimeEvent>();
  private waiters: Array<{ match: (e: RealtimeEvent) => boolean; resolve: (e: RealtimeEvent) => void }> = [];

  push(event: RealtimeEvent): void {
    this.events.push(event);
    const waiter = this.waiters.find((w) => w.match(event));
    if (waiter) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      this.taken.add(event);
      waiter.resolve(event);
    }
  }

  /** the next event of `type` not handed out before (already received ones count) */
  next(type: string, match: (e: RealtimeEvent) => boolean = () => true): Promise<RealtimeEvent> {
    const test = (e: RealtimeEvent) => e.type === type && match(e);
    const existing = this.events.find((e) => !this.taken.has(e) && test(e));
    if (existing) {
      this.taken.add(existing);
      return Promise.resolve(existing);
    }
    return new Promise((resolve) => this.waiters.push({ match: test, resolve }));
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }

  ofType(type: string): RealtimeEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}

export interface SdkSession {
  rt: OpenAIRealtimeWS | BetaRealtimeWS;
  log: EventLog;
  errors: Error[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  send(event: Record<string, unknown>): void;
}

/** The official client's realtime WebSocket class (GA, or the beta one) against the gateway. */
export function sdkSession(tg: TestGateway, key: string, model: string, generation: 'ga' | 'beta' = 'ga'): SdkSession {
  const client = new OpenAI({ apiKey: key, baseURL: tg.baseURL });
  const rt = generation === 'ga' ? new OpenAIRealtimeWS({ model, options: plainTcp }, client) : new BetaRealtimeWS({ model, options: plainTcp }, client);
  const log = new EventLog();
  const errors: Error[] = [];
  // the two classes' typed emitters do not unify; both emit 'event' and 'error'
  const emitter = rt as unknown as { on(name: string, listener: (value: any) => void): void };
  emitter.on('event', (event: RealtimeEvent) => log.push(event));
  emitter.on('error', (error: Error) => errors.push(error));
  const opened = new Promise<void>((resolve, reject) => {
    rt.socket.once('open', () => resolve());
    rt.socket.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => rt.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
  return { rt, log, errors, opened, closed, send: (event) => rt.send(event as never) };
}

export interface RawSession {
  ws: WebSocket;
  log: EventLog;
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  send(event: Record<string, unknown>): void;
}

export function realtimeUrl(tg: TestGateway, model: string): string {
  return `${tg.origin.replace('http', 'ws')}/v1/realtime?model=${encodeURIComponent(model)}`;
}

/** A plain `ws` client: headers and subprotocols as given, every text frame parsed into the log. */
export function rawSession(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}): RawSession {
  const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {}, perMessageDeflate: false });
  const log = new EventLog();
  ws.on('message', (data, binary) => {
    if (!binary) log.push(JSON.parse(data.toString()) as RealtimeEvent);
  });
  ws.on('error', () => undefined);
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
  return { ws, log, opened, closed, send: (event) => ws.send(JSON.stringify(event)) };
}

export interface Refusal {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** Attempts a handshake that must be refused; resolves with the HTTP answer. */
export function expectRefusal(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
    ws.on('error', () => undefined);
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('the handshake was accepted'));
    });
    ws.once('unexpected-response', (req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers });
      });
    });
  });
}

/**
 * Resolves once the gateway holds no realtime session any more (both sides of each closed, its
 * holds settled or released): what a client's own close event cannot tell.
 */
export function noSessions(tg: TestGateway): Promise<void> {
  const sessions = tg.gateway.realtime;
  if (sessions.live.size === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (sessions.live.size > 0) return;
      sessions.events.off('closed', check);
      resolve();
    };
    sessions.events.on('closed', check);
  });
}

/** A text turn: a user item, then a response; resolves with the response.done event. */
export async function textTurn(session: { send(e: Record<string, unknown>): void; log: EventLog }, text: string): Promise<RealtimeEvent> {
  session.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
  session.send({ type: 'response.create' });
  return session.log.next('response.done');
}

/** base64 PCM16 of `ms` milliseconds at 24 kHz; `silent` = all zero samples */
export function pcm16(ms: number, silent = false): string {
  const bytes = Buffer.alloc(Math.round(ms * 48), silent ? 0 : 7);
  return bytes.toString('base64');
}

/** Sums one response.done usage the way the price book does; `prices` in nano-dollars per token. */
export function priceOf(usage: any, prices: { text: [number, number, number]; audio: [number, number, number] }): number {
  const inDetails = usage.input_token_details ?? {};
  const cachedDetails = inDetails.cached_tokens_details ?? {};
  const textIn = inDetails.text_tokens ?? 0;
  const audioIn = inDetails.audio_tokens ?? 0;
  const cachedText = cachedDetails.text_tokens ?? 0;
  const cachedAudio = cachedDetails.audio_tokens ?? 0;
  const outDetails = usage.output_token_details ?? {};
  assert.equal(textIn + audioIn, usage.input_tokens, 'the simulator reports text + audio = input');
  const exact =
    (textIn - cachedText) * prices.text[0] +
    cachedText * prices.text[1] +
    (outDetails.text_tokens ?? 0) * prices.text[2] +
    (audioIn - cachedAudio) * prices.audio[0] +
    cachedAudio * prices.audio[1] +
    (outDetails.audio_tokens ?? 0) * prices.audio[2];
  return Math.round(exact);
}

/** gpt-realtime list prices, nano-dollars per token: [input, cached input, output] */
export const GPT_REALTIME = { text: [4000, 400, 16000] as [number, number, number], audio: [32000, 400, 64000] as [number, number, number] };
