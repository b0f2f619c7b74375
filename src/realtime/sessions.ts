import { EventEmitter } from 'node:events';
import { Gauge, type Registry } from 'prom-client';
import { GatewayError } from '../core/errors.ts';
import type { LiveSession } from './types.ts';

/** how long a shutdown waits for clients to complete their close handshakes after billing is done */
const CLOSE_HANDSHAKE_MS = 1_000;

/** The configuration's realtime limits (config/env.ts) that the registry applies */
export interface SessionLimits {
  /** open sessions one key may hold on this instance; 0 = no limit */
  maxSessionsPerKey: number;
  /** ping interval towards both sockets */
  pingIntervalMs: number;
}

/**
 * The realtime sessions of this instance: per-key session counts (the limit is per instance),
 * one shared ticker for pings and idle timeouts, the check of every session's key and account
 * (each sync cycle, and as soon as the state sync applies a change), and shutdown.
 */
export class RealtimeSessions {
  readonly live = new Set<LiveSession>();
  /** 'opened' and 'closed' (session), 'backpressure' (session, direction): for tests and observers */
  readonly events = new EventEmitter();
  private readonly perKey = new Map<string, number>();
  private readonly limits: SessionLimits;
  private ticker: NodeJS.Timeout | undefined;
  private readonly checkIntervalMs: number;
  private checker: NodeJS.Timeout | undefined;
  private checkQueued = false;

  /** `checkIntervalMs`: how often keys and accounts are checked (the sync interval) */
  constructor(limits: SessionLimits, registry: Registry, checkIntervalMs: number) {
    this.limits = limits;
    this.checkIntervalMs = checkIntervalMs;
    const live = this.live;
    new Gauge({
      name: 'modelgate_realtime_sessions',
      help: 'Open realtime WebSocket sessions',
      registers: [registry],
      collect() {
        this.set(live.size);
      },
    });
  }

  /** Takes one of the key's session slots or refuses with 429; the returned function gives it back (once). */
  claimSlot(keyId: string): () => void {
    const open = this.perKey.get(keyId) ?? 0;
    const max = this.limits.maxSessionsPerKey;
    if (max > 0 && open >= max) {
      throw new GatewayError({
        status: 429,
        type: 'rate_limit_exceeded',
        code: 'too_many_sessions',
        message: `This API key already holds ${open} open realtime sessions, its limit. Close one before opening another.`,
        retryAfter: 1,
      });
    }
    this.perKey.set(keyId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.perKey.set(keyId, left);
      else this.perKey.delete(keyId);
    };
  }

  sessionsOfKey(keyId: string): number {
    return this.perKey.get(keyId) ?? 0;
  }

  add(session: LiveSession): void {
    this.live.add(session);
    this.events.emit('opened', session);
    if (!this.ticker) {
      this.ticker = setInterval(() => this.tick(), this.limits.pingIntervalMs);
      this.ticker.unref();
    }
    if (!this.checker) {
      // expiry comes with time, not with a change: checked every cycle as well
      this.checker = setInterval(() => this.checkCredentials(), this.checkIntervalMs);
      this.checker.unref();
    }
  }

  /** The state sync applied a key or account change: check every session once, after the batch is applied. */
  credentialsChanged(): void {
    if (this.checkQueued || this.live.size === 0) return;
    this.checkQueued = true;
    setImmediate(() => {
      this.checkQueued = false;
      this.checkCredentials();
    });
  }

  delete(session: LiveSession): void {
    if (!this.live.delete(session)) return;
    this.events.emit('closed', session);
    if (this.live.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
    if (this.live.size === 0 && this.checker) {
      clearInterval(this.checker);
      this.checker = undefined;
    }
  }

  /** Ends every session (1001), waits until each one's usage is billed, then cuts clients that linger. */
  async closeAll(): Promise<void> {
    const sessions = [...this.live];
    await Promise.all(sessions.map((s) => s.shutdown()));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_HANDSHAKE_MS)));
    await Promise.race([Promise.all(sessions.map((s) => s.closed)), timeout]);
    clearTimeout(timer);
    for (const session of sessions) if (this.live.has(session)) session.terminateClient();
  }

  private checkCredentials(): void {
    const now = Date.now();
    for (const session of this.live) session.checkCredentials(now);
  }

  private tick(): void {
    const now = Date.now();
    for (const session of this.live) session.tick(now);
  }
}
