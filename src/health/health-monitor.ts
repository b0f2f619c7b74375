import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics.ts';
import type { ProviderRuntime, Router } from '../pipeline/router.ts';
import type { UpstreamClient } from '../pipeline/upstream-client.ts';
import { healthProbeFor, runHealthProbe, type ProbeResult } from './probe.ts';

export interface HealthOptions {
  /** one probe per provider per interval; 0 = no probes */
  intervalMs: number;
  timeoutMs: number;
  /** failed probes in a row that take a provider out of rotation (one passing probe puts it back) */
  failures: number;
}

interface Dependencies {
  router: Router;
  upstream: UpstreamClient;
  metrics: Metrics;
  redis: Redis | undefined;
  log: Logger;
}

/** What an instance publishes after each probe it ran. */
interface SharedResult {
  instance: string;
  provider: string;
  slot: number;
  result: ProbeResult;
}

/** the newest results kept per provider (in memory, and in Redis when shared) */
export const HISTORY_SIZE = 50;
const CHANNEL = 'mg:health';
const historyKey = (providerId: string) => `mg:health:history:${providerId}`;
// one lease per provider and time slot: whichever instance takes it probes, the others do not
const leaseKey = (providerId: string, slot: number) => `mg:health:lease:${providerId}:${slot}`;

/**
 * Probes every enabled provider once per interval with its family's cheap request (the models
 * list) and feeds the result to the provider's circuit breaker: `failures` failed probes in a
 * row take it out of rotation, one passing probe puts it back. Slots are aligned on the wall
 * clock, so with Redis every instance wakes for the same slot and a lease (SET NX) lets one of
 * them probe; it publishes the result, which every instance applies. Without Redis (or while
 * Redis is unreachable) each instance probes for itself.
 */
export class HealthMonitor {
  readonly instance = randomUUID();
  /** 'probed' (providerId, result, slot): a probe this instance ran; 'applied' (providerId, result, up): any instance's result taken in */
  readonly events = new EventEmitter();
  private readonly deps: Dependencies;
  private readonly options: HealthOptions;
  private readonly histories = new Map<string, ProbeResult[]>();
  private timer: NodeJS.Timeout | undefined;
  private subscriber: Redis | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(deps: Dependencies, options: HealthOptions) {
    this.deps = deps;
    this.options = options;
  }

  get enabled(): boolean {
    return this.options.intervalMs > 0;
  }

  async start(): Promise<void> {
    if (!this.enabled) return;
    const { redis, log } = this.deps;
    if (redis) {
      await this.loadShared().catch((err: Error) => log.warn({ err: err.message }, 'health: could not read the shared probe history'));
      const subscriber = redis.duplicate({ enableOfflineQueue: true });
      subscriber.on('error', (err: Error) => log.debug({ err: err.message }, 'health: redis subscriber error'));
      subscriber.on('message', (_channel: string, text: string) => this.receive(text));
      subscriber.subscribe(CHANNEL).catch((err: Error) => log.warn({ err: err.message }, 'health: could not subscribe to shared probe results'));
      this.subscriber = subscriber;
    }
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    this.subscriber?.disconnect();
  }

  /** The provider's probe results, newest first. */
  history(providerId: string): ProbeResult[] {
    return [...(this.histories.get(providerId) ?? [])].reverse();
  }

  private schedule(): void {
    if (this.stopped) return;
    const interval = this.options.intervalMs;
    const now = Date.now();
    const slot = Math.floor(now / interval) + 1;
    this.timer = setTimeout(() => {
      this.ticking = this.tick(slot).finally(() => this.schedule());
    }, slot * interval - now);
    this.timer.unref();
  }

  private async tick(slot: number): Promise<void> {
    const runtimes = this.deps.router.all();
    for (const id of this.histories.keys()) if (!this.deps.router.get(id)) this.histories.delete(id);
    await Promise.all(runtimes.filter((r) => r.record.enabled).map((r) => this.probe(r, slot)));
  }

  private async probe(runtime: ProviderRuntime, slot: number): Promise<void> {
    const request = healthProbeFor(runtime);
    if (!request) return;
    const { redis, metrics } = this.deps;
    const id = runtime.record.id;
    if (redis && !(await this.lease(redis, id, slot))) return;
    const result = await runHealthProbe(this.deps.upstream, runtime, request, this.options.timeoutMs);
    const provider = runtime.record.name;
    metrics.probes.inc({ provider, result: result.ok ? 'ok' : 'fail' });
    metrics.probeLatency.observe({ provider }, result.latency_ms / 1000);
    this.apply(id, result);
    this.events.emit('probed', id, result, slot);
    if (redis) await this.share(redis, { instance: this.instance, provider: id, slot, result });
  }

  /** Did this instance win the slot? Redis unreachable: yes (probing twice beats not probing). */
  private async lease(redis: Redis, providerId: string, slot: number): Promise<boolean> {
    try {
      // kept well past the slot: an instance whose timer fired late (a busy machine) must still find it taken
      return (await redis.set(leaseKey(providerId, slot), this.instance, 'PX', Math.max(2 * this.options.intervalMs, 60_000), 'NX')) === 'OK';
    } catch {
      return true;
    }
  }

  private async share(redis: Redis, shared: SharedResult): Promise<void> {
    const key = historyKey(shared.provider);
    const text = JSON.stringify(shared);
    try {
      await redis
        .multi()
        .lpush(key, JSON.stringify(shared.result))
        .ltrim(key, 0, HISTORY_SIZE - 1)
        .pexpire(key, Math.max(86_400_000, HISTORY_SIZE * this.options.intervalMs))
        .publish(CHANNEL, text)
        .exec();
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'health: could not share a probe result');
    }
  }

  private receive(text: string): void {
    let shared: SharedResult;
    try {
      shared = JSON.parse(text) as SharedResult;
    } catch {
      return;
    }
    if (shared.instance === this.instance || typeof shared.provider !== 'string' || typeof shared.result?.ok !== 'boolean') return;
    this.apply(shared.provider, shared.result);
  }

  /** A starting instance takes in the history (and so the health) other instances recorded. */
  private async loadShared(): Promise<void> {
    const redis = this.deps.redis!;
    const runtimes = this.deps.router.all();
    if (runtimes.length === 0) return;
    const batch = redis.pipeline();
    for (const runtime of runtimes) batch.lrange(historyKey(runtime.record.id), 0, HISTORY_SIZE - 1);
    const answers = (await batch.exec()) ?? [];
    runtimes.forEach((runtime, i) => {
      const items = answers[i]?.[1];
      if (!Array.isArray(items)) return;
      // stored newest first
      for (const item of [...items].reverse()) {
        try {
          this.apply(runtime.record.id, JSON.parse(String(item)) as ProbeResult);
        } catch {
          // a malformed entry is skipped
        }
      }
    });
  }

  private apply(providerId: string, result: ProbeResult): void {
    const runtime = this.deps.router.get(providerId);
    if (!runtime) return;
    const list = this.histories.get(providerId) ?? [];
    list.push(result);
    if (list.length > HISTORY_SIZE) list.shift();
    this.histories.set(providerId, list);
    let failedInARow = 0;
    for (let i = list.length - 1; i >= 0 && !list[i]!.ok; i--) failedInARow++;
    const wasDown = runtime.breaker.probedDown;
    const up = result.ok || (failedInARow < this.options.failures && !wasDown);
    runtime.breaker.setProbeHealth(up);
    // one line per change of verdict, not per probe
    if (up === wasDown) {
      const fields = { provider: runtime.record.name, status: result.status, message: result.message };
      if (up) this.deps.log.info(fields, 'health probes pass again: provider back in rotation');
      else this.deps.log.warn({ ...fields, failed_in_a_row: failedInARow }, 'health probes failing: provider out of rotation');
    }
    this.deps.metrics.providerHealthy.set({ provider: runtime.record.name }, up ? 1 : 0);
    this.events.emit('applied', providerId, result, up);
  }
}
