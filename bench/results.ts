// The figures `npm run bench` (bench/run.ts) measures, as it keeps them and writes them to
// bench/results/latest.json; bench/report.ts formats them.

export type Mode = 'json' | 'stream';

export interface WrkResult {
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  non2xx: number;
  /** CPU time wrk itself used, microseconds */
  wrkCpuUs: number;
}

/**
 * Nearest rank: the smallest sample with at least q of them at or below it. (realtime.ts indexes
 * at floor(q·n), one place higher when q·n is whole; each keeps its own so that neither's published
 * figures move.)
 */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function errorCount(r: WrkResult): number {
  return r.non2xx + r.errors.connect + r.errors.read + r.errors.write + r.errors.status + r.errors.timeout;
}

/** The gateway's garbage-collection pauses so far, from its own Prometheus metrics (prom-client's gc histogram). */
export interface GcTotals {
  minorCount: number;
  minorSeconds: number;
  /** scavenges that paused the event loop for 10 ms or more */
  minorOver10ms: number;
  majorCount: number;
  majorSeconds: number;
}

export interface CaseResult {
  upstreamLatencyMs: number;
  mode: Mode;
  connections: number;
  direct: WrkResult & { simCpuUsPerRequest: number; otherLoadCores: number; stealCores: number };
  gateway: ServerRun;
  /** the gateway's GC pauses during the measured run (absent when its metrics could not be read) */
  gatewayGc?: GcTotals;
  /** the bare relay (bench/bare-relay.ts) in the gateway's place; absent with BENCH_RELAY=0 */
  relay?: ServerRun & { addedP50Ms: number; addedP99Ms: number };
  addedP50Ms: number;
  addedP99Ms: number;
  /** every direct/gateway pair's added latency and CPU per request, in the order measured (one pair unless BENCH_PAIRS applies) */
  pairs: PairFigures[];
  /** the relay's runs of the same pairs (each against its pair's direct run); the relay figures are its median pair's */
  relayPairs: PairFigures[];
  /** CPU other processes used (in cores) in the second before the case began */
  otherLoadBeforeCores: number;
  /** attempts made: a run during which other processes used ≥ BENCH_OTHER_LOAD_LIMIT of a core is measured again */
  attempts: number;
  /** true when every attempt was disturbed by other processes: treat these figures with care */
  contended: boolean;
}

/** One run of a pair: its latency added over the pair's direct run, and its CPU per request. */
export interface PairFigures {
  addedP50Ms: number;
  addedP99Ms: number;
  cpuUsPerRequest: number;
}

/** otherLoadCores: CPU other processes and the host's steal took during the run, in cores; stealCores: the steal part */
export type ServerRun = WrkResult & { cpuUsPerRequest: number; cpuUtilisation: number; peakRssMb: number; simCpuUsPerRequest: number; otherLoadCores: number; stealCores: number };

export interface Percentiles {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

export interface WakeUpResult {
  gapMs: number;
  rounds: number;
  p50Ms: number;
  p99Ms: number;
}

export interface TtfbResult {
  upstreamLatencyMs: number;
  iterations: number;
  direct: Percentiles;
  gateway: Percentiles;
  addedP50Ms: number;
  addedP99Ms: number;
  /** median of the per-iteration differences (each gateway request paired with its neighbouring direct one) */
  addedPairedMedianMs: number;
  /** the bare relay, same requests interleaved (absent with BENCH_RELAY=0) */
  relay?: Percentiles & { addedP50Ms: number; addedP99Ms: number };
  /**
   * bench/wakeup-probe.ts right after: a pipe round trip between a Node process on each core, back
   * to back and after the upstream latency's idle gap — what a hop costs on this machine alone
   */
  roundTrips?: WakeUpResult[];
  /** CPU other processes (and the host's steal) used during the measurement, in cores */
  otherLoadCores: number;
  /** the part of otherLoadCores that was the host's steal */
  stealCores: number;
  attempts: number;
  contended: boolean;
}
