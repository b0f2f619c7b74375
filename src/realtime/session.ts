import { WebSocket, type RawData } from 'ws';
import { authenticationError, invalidRequest, type GatewayError } from '../core/errors.ts';
import type { Gateway } from '../gateway.ts';
import type { Admission } from './handshake.ts';
import { audioAppendLength, CLOSE, closeReason, errorEvent, frameFailure, isSendableCode, newEventId, parseEvent, readClientEvent, sniffType } from './frames.ts';
import { Pipe } from './pipe.ts';
import type { RealtimeGeneration } from '../core/contracts/realtime-codec.ts';
import { detectGeneration } from './translate/detect.ts';
import { clientEvent, createTranslator, DELTA_TYPES, type EventTranslator } from './translate/events.ts';
import { isObject, type Json } from './translate/shapes.ts';
import type { UpstreamConnection } from './upstream.ts';

/** how long a session that is ending waits for its cancelled responses' usage */
const DRAIN_GRACE_MS = 5_000;
/** bytes of a frame read to find its type without decoding the rest */
const HEAD_BYTES = 64;
/** server events the session reads (billing, model names, estimates); the others pass untouched */
const INSPECTED = new Set(['session.created', 'session.updated', 'response.created', 'response.done', 'error']);

type State = 'open' | 'draining' | 'closed';

interface Ending {
  code: number;
  reason: string;
  /** an `error` event the client receives before the close */
  event?: string;
}

/**
 * One live realtime session: two sockets, frames relayed both ways as they come (with
 * backpressure), translated between interface generations when client and upstream differ, and
 * every response billed from the upstream's `response.done`. Either side closing closes the other;
 * a session that ends while responses run cancels them and waits briefly for their usage.
 */
export class RealtimeSession {
  readonly id: string;
  readonly keyId: string;
  private readonly gateway: Gateway;
  private readonly admission: Admission;
  private readonly upstream: WebSocket;
  private readonly connection: UpstreamConnection;
  /** server events → the client's generation (null: the same as the upstream's) */
  private translator: EventTranslator | null;
  /** the client's generation: the handshake's guess until a frame shows it */
  private clientGeneration: RealtimeGeneration;
  private generationShown = false;
  private readonly upstreamGeneration: RealtimeGeneration;
  private readonly publicModel: string;
  private readonly upstreamModel: string;
  private client: WebSocket | undefined;
  private toUpstream: Pipe | undefined;
  private toClient: Pipe | undefined;
  private state: State = 'open';
  private lastActivity = Date.now();
  private clientAlive = true;
  private upstreamAlive = true;
  private upstreamError: Error | undefined;
  private upstreamClosed = false;
  private clientClosed = false;
  private expiry: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private readonly openedAt = Date.now();
  /** resolves once the upstream is closed and every hold is settled or released */
  readonly settled: Promise<void>;
  private resolveSettled!: () => void;
  /** resolves once both sockets are closed */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(gateway: Gateway, admission: Admission, connection: UpstreamConnection) {
    this.gateway = gateway;
    this.admission = admission;
    this.connection = connection;
    this.upstream = connection.socket;
    this.id = admission.identity.sessionId;
    this.keyId = admission.principal.key.id;
    this.publicModel = admission.identity.model;
    this.upstreamModel = connection.candidate.upstreamModel;
    this.clientGeneration = admission.clientGeneration;
    this.upstreamGeneration = connection.handshake.generation;
    this.translator = createTranslator(this.clientGeneration, this.upstreamGeneration);
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve));
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    admission.billing.onQuotaError = () => {
      if (this.state === 'open' && !admission.billing.busy && admission.billing.quotaError) this.endForQuota(admission.billing.quotaError, null);
    };
    this.upstream.on('close', this.onUpstreamClose);
    this.upstream.on('error', (error) => (this.upstreamError = error));
    this.upstream.on('pong', () => (this.upstreamAlive = true));
  }

  /** The client's socket is upgraded: start relaying. */
  attach(client: WebSocket): void {
    this.client = client;
    const cap = this.gateway.config.realtime.maxBufferedBytes;
    this.toUpstream = new Pipe(client, this.upstream, cap, () => this.gateway.realtime.events.emit('backpressure', this, 'toUpstream'));
    this.toClient = new Pipe(this.upstream, client, cap, () => this.gateway.realtime.events.emit('backpressure', this, 'toClient'));
    client.on('message', this.onClientFrame);
    client.on('close', this.onClientClose);
    client.on('error', (error) => this.gateway.log.debug({ sessionId: this.id, err: error.message }, 'realtime client socket error'));
    client.on('pong', () => (this.clientAlive = true));
    this.gateway.realtime.add(this);
    this.expiry = setTimeout(() => this.expire(), this.gateway.config.realtime.maxSessionMs);
    this.expiry.unref();
    this.gateway.log.info(
      { reqId: this.admission.identity.requestId, sessionId: this.id, keyId: this.keyId, model: this.publicModel, provider: this.admission.identity.providerId, client: this.admission.clientGeneration, upstream: this.connection.handshake.generation },
      'realtime session opened',
    );
    if (this.upstreamClosed) {
      // the upstream went away between its handshake and the client's
      this.closeClient(CLOSE.internal, 'upstream connection lost');
      return;
    }
    this.connection.detach();
    this.upstream.on('message', this.onUpstreamMessage);
    for (const frame of this.connection.early.splice(0)) this.onUpstreamMessage(frame.data, frame.binary);
    this.upstream.resume();
  }

  /** The client never got its socket (its upgrade failed): nothing to relay, everything to release. */
  abandon(): void {
    this.state = 'draining';
    this.clientClosed = true;
    this.closeUpstream('client went away during the handshake');
  }

  /** stats for tests and metrics */
  get stats() {
    return {
      toClient: { peakBuffered: this.toClient?.peakBuffered ?? 0, pauses: this.toClient?.pauses ?? 0, frames: this.toClient?.frames ?? 0 },
      toUpstream: { peakBuffered: this.toUpstream?.peakBuffered ?? 0, pauses: this.toUpstream?.pauses ?? 0, frames: this.toUpstream?.frames ?? 0 },
      responses: this.admission.billing.responses,
      chargedNano: this.admission.billing.chargedNano,
    };
  }

  /** Periodic (MODELGATE_REALTIME_PING_INTERVAL_MS): liveness of both sockets and the idle timeout. */
  tick(now: number): void {
    if (this.state !== 'open' || !this.client) return;
    // a side we stopped reading cannot answer pings, and frames wait there: neither dead nor idle
    const clientUnread = this.toUpstream?.isPaused ?? false;
    const upstreamUnread = this.toClient?.isPaused ?? false;
    if (!clientUnread && !upstreamUnread && now - this.lastActivity >= this.gateway.config.realtime.idleTimeoutMs) {
      this.end({ code: CLOSE.policy, reason: 'idle_timeout', event: errorEvent(invalidRequest('The session was idle for too long and has been closed.', null, 'session_idle_timeout')) });
      return;
    }
    // a socket in its close handshake is not pinged (ws throws on a socket that is not open)
    if (!clientUnread && this.client.readyState === WebSocket.OPEN) {
      if (!this.clientAlive) return this.client.terminate();
      this.clientAlive = false;
      this.client.ping();
    }
    if (!upstreamUnread && this.upstream.readyState === WebSocket.OPEN) {
      if (!this.upstreamAlive) return this.upstream.terminate();
      this.upstreamAlive = false;
      this.upstream.ping();
    }
  }

  /**
   * Each sync cycle and after every key or account change: a session whose key was revoked,
   * disabled or expired, or whose account was disabled, ends with 1008 (its running responses
   * are cancelled and billed, its standing hold released).
   */
  checkCredentials(now: number): void {
    if (this.state !== 'open') return;
    const principal = this.admission.principal;
    const refusal =
      this.gateway.keys.refusalFor(principal.key.id, now) ??
      (this.gateway.ledger.isAccountDisabled(principal.accountId) ? authenticationError('The account of this API key is disabled. Contact the operator.', 'account_disabled') : null);
    if (refusal) this.end({ code: CLOSE.policy, reason: refusal.code ?? 'key_unusable', event: errorEvent(refusal) });
  }

  /** Graceful shutdown: the client hears 1001, running responses are cancelled and billed. */
  shutdown(): Promise<void> {
    this.end({ code: CLOSE.goingAway, reason: 'server shutting down' });
    return this.settled;
  }

  /** after shutdown: a client that never finished the close handshake is cut */
  terminateClient(): void {
    this.client?.terminate();
  }

  /** A client frame that cannot be read gets an `error` event; one that still throws is a bug, logged: never the session's or the process's end. */
  private readonly onClientFrame = (data: RawData, binary: boolean): void => {
    try {
      this.onClientMessage(data, binary);
    } catch (error) {
      const failure = frameFailure(error);
      if (failure.bug) this.gateway.log.error({ sessionId: this.id, err: error }, 'realtime client frame failed');
      this.toClient?.send(failure.event, false);
    }
  };

  private readonly onClientMessage = (data: RawData, binary: boolean): void => {
    this.lastActivity = Date.now();
    if (this.state !== 'open') return;
    const frame = data as Buffer;
    const pipe = this.toUpstream!;
    if (binary) {
      pipe.send(frame, true);
      return;
    }
    // the bulk of a voice session: audio appends pass without decoding their audio
    const audioChars = audioAppendLength(frame);
    if (audioChars !== undefined) {
      this.admission.estimator.noteAudio(audioChars);
      pipe.send(frame, false);
      return;
    }
    // throws (answered by onClientFrame, never forwarded) when the frame is not an event the session can read
    const event = readClientEvent(frame);
    const shown = detectGeneration(event);
    if (shown !== undefined && !this.generationShown) this.adoptGeneration(shown);
    const eventId = typeof event.event_id === 'string' ? event.event_id : null;
    let out: Json = event;
    switch (event.type) {
      case 'response.create': {
        const refusal = this.admission.billing.onResponseCreate(eventId, isObject(event.response) ? event.response : undefined);
        if (refusal?.endsSession) return this.endForQuota(refusal.error, eventId);
        if (refusal) return this.answer(refusal.error, eventId);
        // re-serialised: the upstream reads exactly the event the gateway accounted for
        out = { ...event };
        break;
      }
      case 'conversation.item.create': {
        const refusal = this.admission.billing.onItemCreate(event.item);
        if (refusal) return this.answer(refusal, eventId);
        // re-serialised for the same reason: a frame with two "item" keys cannot hide a larger one
        out = { ...event };
        break;
      }
      case 'input_audio_buffer.append':
        if (typeof event.audio === 'string') this.admission.estimator.noteAudio(event.audio.length);
        break;
      case 'session.update':
        // the session stays on the model it was opened (and is priced) for
        out = isObject(event.session) && event.session.model !== undefined ? { ...event, session: { ...event.session, model: this.upstreamModel } } : { ...event };
        break;
    }
    // each frame from its own generation: a client may write both, whatever its handshake said
    if ((shown ?? this.clientGeneration) !== this.upstreamGeneration) out = clientEvent(out, this.upstreamGeneration);
    pipe.send(out === event ? frame : JSON.stringify(out), false);
  };

  /** The first frame that shows the client's generation settles it: server events follow it from then on. */
  private adoptGeneration(generation: RealtimeGeneration): void {
    this.generationShown = true;
    if (generation === this.clientGeneration) return;
    this.gateway.log.debug({ sessionId: this.id, from: this.clientGeneration, to: generation }, 'realtime client generation told from its frames');
    this.clientGeneration = generation;
    this.translator = createTranslator(generation, this.upstreamGeneration);
  }

  /** A client event the gateway refused (and did not forward): the client hears why, in order with the relayed events. */
  private answer(error: GatewayError, clientEventId: string | null): void {
    this.toClient?.send(errorEvent(error, clientEventId), false);
  }

  private readonly onUpstreamMessage = (data: RawData, binary: boolean): void => {
    this.lastActivity = Date.now();
    if (this.state === 'closed') return;
    const forward = this.state === 'open' && this.toClient !== undefined;
    let frame = data as Buffer;
    if (binary) {
      if (forward) this.toClient!.send(frame, true);
      return;
    }
    const type = sniffType(frame.toString('latin1', 0, HEAD_BYTES));
    // deltas (renamed if need be) and, between same-generation ends, every event the session does not read
    if (type !== undefined && (DELTA_TYPES.has(type) || (this.translator === null && !INSPECTED.has(type)))) {
      if (!forward) return;
      const renamed = this.translator?.renameDelta(type) ?? type;
      if (renamed !== type) frame = Buffer.concat([Buffer.from(`{"type":"${renamed}"`), frame.subarray(10 + type.length)]);
      this.toClient!.send(frame, false);
      return;
    }
    const event = parseEvent(frame.toString('utf8'));
    if (!event) {
      if (forward) this.toClient!.send(frame, false);
      return;
    }
    const billing = this.admission.billing;
    let out: Json = event;
    let ends: GatewayError | null = null;
    switch (event.type) {
      case 'session.created':
      case 'session.updated':
        if (isObject(event.session)) {
          this.admission.estimator.noteSession(event.session);
          if (event.session.model !== undefined) out = { ...event, session: { ...event.session, model: this.publicModel } };
        }
        break;
      case 'response.created': {
        const id = isObject(event.response) && typeof event.response.id === 'string' ? event.response.id : undefined;
        if (id === undefined) break;
        const refusal = billing.onResponseCreated(id);
        if (this.state !== 'open' || refusal) this.cancelUpstream(id);
        ends = refusal;
        break;
      }
      case 'response.done':
        if (isObject(event.response)) ends = billing.onResponseDone(event.response);
        break;
      case 'error':
        billing.onUpstreamError(event);
        break;
    }
    if (forward) {
      if (this.translator) for (const translated of this.translator.toClient(out)) this.toClient!.send(JSON.stringify(translated), false);
      else this.toClient!.send(out === event ? frame : JSON.stringify(out), false);
    }
    if (this.state === 'open') {
      if (ends) this.endForQuota(ends, null);
    } else if (this.state === 'draining' && !billing.busy) {
      this.closeUpstream('session ended');
    }
  };

  private readonly onClientClose = (code: number): void => {
    this.clientClosed = true;
    if (this.state === 'open') {
      this.state = 'draining';
      this.gateway.log.debug({ sessionId: this.id, code }, 'realtime client closed');
      this.drainUpstream('client closed');
    }
    this.finish();
  };

  private readonly onUpstreamClose = (code: number, reason: Buffer): void => {
    this.upstreamClosed = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    if (this.state === 'open') {
      this.state = 'draining';
      const to = clientCloseFor(code, reason.toString('utf8'), this.upstreamError);
      this.gateway.log.info({ sessionId: this.id, upstreamCode: code, clientCode: to.code }, 'realtime upstream closed the session');
      this.closeClient(to.code, to.reason);
    }
    this.settle();
    this.finish();
  };

  private endForQuota(error: GatewayError, clientEventId: string | null): void {
    this.end({ code: CLOSE.policy, reason: 'insufficient_quota', event: errorEvent(error, clientEventId) });
  }

  private expire(): void {
    this.end({ code: CLOSE.policy, reason: 'session_expired', event: errorEvent(invalidRequest('The session reached its maximum duration and has been closed. Open a new session to continue.', null, 'session_expired')) });
  }

  /** The gateway ends the session: tell the client why, close it, then wind the upstream down. */
  private end(ending: Ending): void {
    if (this.state !== 'open') return;
    this.state = 'draining';
    this.gateway.log.info({ sessionId: this.id, code: ending.code, reason: ending.reason }, 'realtime session ended by the gateway');
    if (ending.event && this.client?.readyState === WebSocket.OPEN) this.client.send(ending.event);
    this.closeClient(ending.code, ending.reason);
    this.drainUpstream(ending.reason);
  }

  private closeClient(code: number, reason: string): void {
    const client = this.client;
    if (!client || client.readyState === WebSocket.CLOSED || client.readyState === WebSocket.CLOSING) return;
    client.close(code, closeReason(reason));
  }

  /** Cancels running responses and closes the upstream once their usage arrived (or the grace ran out). */
  private drainUpstream(why: string): void {
    this.admission.billing.windDown();
    if (this.upstream.readyState !== WebSocket.OPEN) return this.closeUpstream(why);
    // the client is gone or going: keep reading the upstream for the usage still to come
    this.upstream.resume();
    for (const id of this.admission.billing.runningIds()) this.cancelUpstream(id);
    if (!this.admission.billing.busy) return this.closeUpstream(why);
    this.drainTimer = setTimeout(() => this.closeUpstream(why), DRAIN_GRACE_MS);
    this.drainTimer.unref();
  }

  private cancelUpstream(responseId: string): void {
    if (this.upstream.readyState === WebSocket.OPEN) this.upstream.send(JSON.stringify({ type: 'response.cancel', event_id: newEventId(), response_id: responseId }));
  }

  private closeUpstream(why: string): void {
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const state = this.upstream.readyState;
    if (state === WebSocket.OPEN) this.upstream.close(CLOSE.normal, closeReason(why));
    else if (state === WebSocket.CONNECTING) this.upstream.terminate();
    else if (state === WebSocket.CLOSED && !this.upstreamClosed) this.onUpstreamClose(1006, Buffer.alloc(0));
  }

  /** once the upstream is closed no usage can come: release what was not billed */
  private settle(): void {
    if (this.expiry) clearTimeout(this.expiry);
    const unsettled = this.admission.billing.close();
    if (unsettled > 0) this.gateway.log.warn({ sessionId: this.id, responses: unsettled }, 'realtime responses ended without usage; released unbilled');
    this.resolveSettled();
  }

  private finish(): void {
    if (this.state === 'closed' || !this.upstreamClosed || !(this.clientClosed || !this.client)) return;
    this.state = 'closed';
    this.admission.releaseSlot();
    this.gateway.realtime.delete(this);
    this.resolveClosed();
    this.gateway.log.info(
      { sessionId: this.id, durationMs: Date.now() - this.openedAt, responses: this.admission.billing.responses, chargedNano: this.admission.billing.chargedNano },
      'realtime session closed',
    );
  }
}

/** What the client hears when the upstream closed: its code when it may be sent on, else a meaningful one. */
function clientCloseFor(code: number, reason: string, error: Error | undefined): { code: number; reason: string } {
  if ((error as { code?: string } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return { code: CLOSE.tooBig, reason: 'upstream message too large' };
  if (code === 1005) return { code: CLOSE.normal, reason: reason || 'upstream closed the session' };
  if (isSendableCode(code)) return { code, reason: reason || 'upstream closed the session' };
  return { code: CLOSE.internal, reason: 'upstream connection lost' };
}
