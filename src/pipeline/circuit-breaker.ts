export interface BreakerOptions {
  /** outcomes older than this are forgotten */
  windowMs: number;
  /** at least this many failures inside the window… */
  minFailures: number;
  /** …making up at least this share of the window's outcomes open the circuit */
  failureRatio: number;
  /** how long an open circuit skips the provider before one probe is let through */
  cooldownMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { windowMs: 30_000, minFailures: 5, failureRatio: 0.5, cooldownMs: 30_000 };

/**
 * Health of one provider over a sliding window. One error never opens it; a run of failures
 * does. After the cool-down a single probe request goes through: success closes the circuit,
 * failure opens it for another cool-down.
 */
const BUCKETS = 10;

export class CircuitBreaker {
  private readonly options: BreakerOptions;
  private readonly bucketMs: number;
  // a ring of per-slice counters: O(1) per outcome however busy the provider is
  private readonly ok = new Array<number>(BUCKETS).fill(0);
  private readonly failed = new Array<number>(BUCKETS).fill(0);
  private readonly slice = new Array<number>(BUCKETS).fill(-1);
  private openUntil = 0;
  private probing = false;
  /** when the probe in flight was let through; results of requests admitted earlier are stragglers */
  private probeAdmittedAt = 0;
  /** the scheduled health checks (src/health) found the provider down: out of rotation until one passes */
  private down = false;

  constructor(options: BreakerOptions = DEFAULT_BREAKER) {
    this.options = options;
    this.bucketMs = Math.max(1, Math.ceil(options.windowMs / BUCKETS));
  }

  /** May a request go to this provider now? Half-open admits exactly one probe at a time. */
  allows(now = Date.now()): boolean {
    if (this.down) return false;
    if (this.openUntil === 0) return true;
    if (now < this.openUntil || this.probing) return false;
    this.probing = true;
    this.probeAdmittedAt = now;
    return true;
  }

  state(now = Date.now()): 'closed' | 'open' | 'half-open' {
    if (this.down) return 'open';
    if (this.openUntil === 0) return 'closed';
    return now < this.openUntil ? 'open' : 'half-open';
  }

  /** `admittedAt`: when the reporting request was let through (tells the probe from stragglers). */
  record(ok: boolean, now = Date.now(), admittedAt?: number): void {
    if (this.openUntil !== 0) {
      // a straggler from before the circuit opened says nothing about the provider now
      if (!this.probing || (admittedAt !== undefined && admittedAt < this.probeAdmittedAt)) return;
      this.probing = false;
      if (ok) {
        this.openUntil = 0;
        this.clear();
      } else {
        this.openUntil = now + this.options.cooldownMs;
      }
      return;
    }
    const slice = Math.floor(now / this.bucketMs);
    const i = slice % BUCKETS;
    if (this.slice[i] !== slice) {
      this.slice[i] = slice;
      this.ok[i] = 0;
      this.failed[i] = 0;
    }
    if (ok) {
      this.ok[i]!++;
      return;
    }
    this.failed[i]!++;
    let failures = 0;
    let total = 0;
    for (let b = 0; b < BUCKETS; b++) {
      if (this.slice[b]! <= slice - BUCKETS) continue; // older than the window
      failures += this.failed[b]!;
      total += this.failed[b]! + this.ok[b]!;
    }
    if (failures >= this.options.minFailures && failures / total >= this.options.failureRatio) {
      this.openUntil = now + this.options.cooldownMs;
      this.clear();
    }
  }

  /**
   * What the scheduled health checks concluded. Down keeps the provider out of rotation (no
   * half-open trial with a customer's request); back up, the passive window starts afresh.
   */
  setProbeHealth(up: boolean): void {
    if (up === !this.down) return;
    this.down = !up;
    if (up) {
      this.openUntil = 0;
      this.probing = false;
      this.clear();
    }
  }

  get probedDown(): boolean {
    return this.down;
  }

  /** A probe that never reported (aborted by the client) must not wedge the circuit. */
  cancelProbe(): void {
    this.probing = false;
  }

  private clear(): void {
    this.ok.fill(0);
    this.failed.fill(0);
    this.slice.fill(-1);
  }
}
