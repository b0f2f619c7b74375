import { WebSocket, type RawData } from 'ws';
import type { GatewayError } from '../core/errors.ts';
import { readClientFrame } from './client-frames.ts';
import type { SessionDeps } from './deps.ts';
import { expiredEnding, idleEnding, quotaEnding, revocation, shutdownEnding, type Ending } from './endings.ts';
import { CLOSE, clientCloseFor, closeReason, errorEvent, frameFailure } from './frames.ts';
import { Generations } from './generations.ts';
import type { Admission } from './handshake.ts';
import { Heartbeat } from './heartbeat.ts';
import { Pipe } from './pipe.ts';
import type { LiveSession, SessionStats } from './types.ts';
import { readUpstreamFrame } from './upstream-frames.ts';
import { UpstreamLink } from './upstream-link.ts';
import type { UpstreamConnection } from './upstream.ts';

type State = 'open' | 'draining' | 'closed';

/**
 * One live realtime session: two sockets, frames relayed both ways as they come (with
 * backpressure), translated between interface generations when client and upstream differ, and
 * every response billed from the upstream's `response.done`. Either side closing closes the other;
 * a session that ends while responses run cancels them and waits briefly for their usage.
 */
export class RealtimeSession implements LiveSession {
  readonly id: string;
  readonly keyId: string;
  private readonly deps: SessionDeps;
  private readonly admission: Admission;
  private readonly upstream: UpstreamLink;
  private readonly connection: UpstreamConnection;
  private readonly generations: Generations;
  private readonly publicModel: string;
  private readonly upstreamModel: string;
  private client: WebSocket | undefined;
  private toUpstream: Pipe | undefined;
  private toClient: Pipe | undefined;
  private state: State = 'open';
  private lastActivity = Date.now();
  private clientBeat: Heartbeat | undefined;
  private readonly upstreamBeat: Heartbeat;
  private clientClosed = false;
  private expiry: NodeJS.Timeout | undefined;
  private readonly openedAt = Date.now();
  /** resolves once the upstream is closed and every hold is settled or released */
  readonly settled: Promise<void>;
  private resolveSettled!: () => void;
  /** resolves once both sockets are closed */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(deps: SessionDeps, admission: Admission, connection: UpstreamConnection) {
    this.deps = deps;
    this.admission = admission;
    this.connection = connection;
    this.id = admission.identity.sessionId;
    this.keyId = admission.principal.key.id;
    this.publicModel = admission.identity.model;
    this.upstreamModel = connection.candidate.upstreamModel;
    this.generations = new Generations(admission.clientGeneration, connection.handshake.generation, (from, to) =>
      this.deps.log.debug({ sessionId: this.id, from, to }, 'realtime client generation told from its frames'),
    );
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve));
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    admission.billing.onQuotaError = () => {
      if (this.state === 'open' && !admission.billing.busy && admission.billing.quotaError) this.end(quotaEnding(admission.billing.quotaError, null));
    };
    this.upstream = new UpstreamLink(connection.socket, this.onUpstreamClose);
    this.upstreamBeat = new Heartbeat(connection.socket);
  }

  /** The client's socket is upgraded: start relaying. */
  attach(client: WebSocket): void {
    this.client = client;
    const cap = this.deps.config.realtime.maxBufferedBytes;
    this.toUpstream = new Pipe(client, this.upstream.socket, cap, () => this.deps.realtime.events.emit('backpressure', this, 'toUpstream'));
    this.toClient = new Pipe(this.upstream.socket, client, cap, () => this.deps.realtime.events.emit('backpressure', this, 'toClient'));
    client.on('message', this.onClientFrame);
    client.on('close', this.onClientClose);
    client.on('error', (error) => this.deps.log.debug({ sessionId: this.id, err: error.message }, 'realtime client socket error'));
    this.clientBeat = new Heartbeat(client);
    this.deps.realtime.add(this);
    this.expiry = setTimeout(() => this.end(expiredEnding()), this.deps.config.realtime.maxSessionMs);
    this.expiry.unref();
    this.deps.log.info(
      { reqId: this.admission.identity.requestId, sessionId: this.id, keyId: this.keyId, model: this.publicModel, provider: this.admission.identity.providerId, client: this.admission.clientGeneration, upstream: this.connection.handshake.generation },
      'realtime session opened',
    );
    if (this.upstream.closed) {
      // the upstream went away between its handshake and the client's
      this.closeClient(CLOSE.internal, 'upstream connection lost');
      return;
    }
    this.connection.detach();
    this.upstream.socket.on('message', this.onUpstreamMessage);
    for (const frame of this.connection.early.splice(0)) this.onUpstreamMessage(frame.data, frame.binary);
    this.upstream.socket.resume();
  }

  /** The client never got its socket (its upgrade failed): nothing to relay, everything to release. */
  abandon(): void {
    this.state = 'draining';
    this.clientClosed = true;
    this.upstream.close('client went away during the handshake');
  }

  /** stats for tests and metrics */
  get stats(): SessionStats {
    return {
      toClient: { peakBuffered: this.toClient?.peakBuffered ?? 0, pauses: this.toClient?.pauses ?? 0, frames: this.toClient?.frames ?? 0 },
      toUpstream: { peakBuffered: this.toUpstream?.peakBuffered ?? 0, pauses: this.toUpstream?.pauses ?? 0, frames: this.toUpstream?.frames ?? 0 },
      responses: this.admission.billing.responses,
      chargedNano: this.admission.billing.chargedNano,
    };
  }

  /** Periodic (MODELGATE_REALTIME_PING_INTERVAL_MS): liveness of both sockets and the idle timeout. */
  tick(now: number): void {
    if (this.state !== 'open' || !this.clientBeat) return;
    // a side we stopped reading cannot answer pings, and frames wait there: neither dead nor idle
    const clientUnread = this.toUpstream?.isPaused ?? false;
    const upstreamUnread = this.toClient?.isPaused ?? false;
    if (!clientUnread && !upstreamUnread && now - this.lastActivity >= this.deps.config.realtime.idleTimeoutMs) {
      this.end(idleEnding());
      return;
    }
    if (!clientUnread && !this.clientBeat.beat()) return;
    if (!upstreamUnread) this.upstreamBeat.beat();
  }

  /** A session whose key or account may no longer be used ends with 1008 (running responses are cancelled and billed, the standing hold released). */
  checkCredentials(now: number): void {
    if (this.state !== 'open') return;
    const ending = revocation(this.deps, this.admission.principal, now);
    if (ending) this.end(ending);
  }

  /** Graceful shutdown: the client hears 1001, running responses are cancelled and billed. */
  shutdown(): Promise<void> {
    this.end(shutdownEnding());
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
      if (failure.bug) this.deps.log.error({ sessionId: this.id, err: error }, 'realtime client frame failed');
      this.toClient?.send(failure.event, false);
    }
  };

  private readonly onClientMessage = (data: RawData, binary: boolean): void => {
    this.lastActivity = Date.now();
    if (this.state !== 'open') return;
    // throws (answered by onClientFrame, never forwarded) when the frame is not an event the session can read
    const verdict = readClientFrame(data as Buffer, binary, this.admission, this.generations, this.upstreamModel);
    if (verdict.to === 'upstream') this.toUpstream!.send(verdict.data, verdict.binary);
    else if (verdict.to === 'end') this.end(quotaEnding(verdict.error, verdict.eventId));
    else this.answer(verdict.error, verdict.eventId);
  };

  /** A client event the gateway refused (and did not forward): the client hears why, in order with the relayed events. */
  private answer(error: GatewayError, clientEventId: string | null): void {
    this.toClient?.send(errorEvent(error, clientEventId), false);
  }

  private readonly onUpstreamMessage = (data: RawData, binary: boolean): void => {
    this.lastActivity = Date.now();
    if (this.state === 'closed') return;
    const forward = this.state === 'open' && this.toClient !== undefined;
    if (binary) {
      if (forward) this.toClient!.send(data as Buffer, true);
      return;
    }
    const reading = readUpstreamFrame(data as Buffer, this.state === 'open', forward, this.admission, this.generations.translator, this.publicModel);
    if (reading.cancel !== null) this.upstream.cancel(reading.cancel);
    for (const frame of reading.send) this.toClient!.send(frame, false);
    if (!reading.read) return;
    if (this.state === 'open') {
      if (reading.ends) this.end(quotaEnding(reading.ends, null));
    } else if (this.state === 'draining' && !this.admission.billing.busy) {
      this.upstream.close('session ended');
    }
  };

  private readonly onClientClose = (code: number): void => {
    this.clientClosed = true;
    if (this.state === 'open') {
      this.state = 'draining';
      this.deps.log.debug({ sessionId: this.id, code }, 'realtime client closed');
      this.drainUpstream('client closed');
    }
    this.finish();
  };

  private readonly onUpstreamClose = (code: number, reason: Buffer): void => {
    if (this.state === 'open') {
      this.state = 'draining';
      const to = clientCloseFor(code, reason.toString('utf8'), this.upstream.error);
      this.deps.log.info({ sessionId: this.id, upstreamCode: code, clientCode: to.code }, 'realtime upstream closed the session');
      this.closeClient(to.code, to.reason);
    }
    this.settle();
    this.finish();
  };

  /** The gateway ends the session: tell the client why, close it, then wind the upstream down. */
  private end(ending: Ending): void {
    if (this.state !== 'open') return;
    this.state = 'draining';
    this.deps.log.info({ sessionId: this.id, code: ending.code, reason: ending.reason }, 'realtime session ended by the gateway');
    if (ending.event && this.client?.readyState === WebSocket.OPEN) this.client.send(ending.event);
    this.closeClient(ending.code, ending.reason);
    this.drainUpstream(ending.reason);
  }

  private closeClient(code: number, reason: string): void {
    const client = this.client;
    if (!client || client.readyState === WebSocket.CLOSED || client.readyState === WebSocket.CLOSING) return;
    client.close(code, closeReason(reason));
  }

  /** Nothing new is reserved; running responses are cancelled, and the upstream closed once their usage arrived. */
  private drainUpstream(why: string): void {
    this.admission.billing.windDown();
    this.upstream.drain(this.admission.billing, why);
  }

  /** once the upstream is closed no usage can come: release what was not billed */
  private settle(): void {
    if (this.expiry) clearTimeout(this.expiry);
    const unsettled = this.admission.billing.close();
    if (unsettled > 0) this.deps.log.warn({ sessionId: this.id, responses: unsettled }, 'realtime responses ended without usage; released unbilled');
    this.resolveSettled();
  }

  private finish(): void {
    if (this.state === 'closed' || !this.upstream.closed || !(this.clientClosed || !this.client)) return;
    this.state = 'closed';
    this.admission.releaseSlot();
    this.deps.realtime.delete(this);
    this.resolveClosed();
    this.deps.log.info(
      { sessionId: this.id, durationMs: Date.now() - this.openedAt, responses: this.admission.billing.responses, chargedNano: this.admission.billing.chargedNano },
      'realtime session closed',
    );
  }
}
