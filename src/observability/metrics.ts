import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { FlushHealth } from '../store/state-sync.ts';
import { CounterCells } from './counter-cells.ts';
import { RequestHistogram } from './request-histogram.ts';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Prometheus metrics, served on /metrics (admin token). Labels stay low-cardinality: no key or account ids. */
export function createMetrics(gauges: { openReservations: () => number; pendingWrites: () => number; flush: () => FlushHealth }) {
  // counters of the write-behind's own tallies: each collect adds what was added since the last one
  const tally = (read: (health: FlushHealth) => number) => {
    let seen = 0;
    return function (this: Counter) {
      const now = read(gauges.flush());
      if (now > seen) this.inc(now - seen);
      seen = now;
    };
  };
  const registry = new Registry();
  // the event-loop lag is sampled every 100 ms rather than prom-client's 10: a timer that woke an
  // idle gateway 100 times a second cost more CPU than a request at low traffic
  collectDefaultMetrics({ register: registry, prefix: 'modelgate_', eventLoopMonitoringPrecision: 100 });
  // each request's counts: added to their counters when /metrics reads them (counter-cells.ts)
  const requestCounts = new CounterCells<string, number>();
  const tokenCounts = new CounterCells<string, 'input' | 'output'>();
  const costCounts = new CounterCells<string, ''>();
  return {
    registry,
    requestCounts,
    tokenCounts,
    costCounts,
    requests: new Counter({
      name: 'modelgate_requests_total',
      help: 'Requests answered, by endpoint and HTTP status',
      labelNames: ['endpoint', 'status'] as const,
      registers: [registry],
      collect() {
        requestCounts.drain((endpoint, status, n) => this.inc({ endpoint, status: String(status) }, n));
      },
    }),
    // observed on every request: request-histogram.ts
    latency: new RequestHistogram({
      name: 'modelgate_request_duration_seconds',
      help: 'Time from request to the end of the answer',
      labelName: 'endpoint',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    upstreamLatency: new RequestHistogram({
      name: 'modelgate_upstream_first_byte_seconds',
      help: 'Time from sending to an upstream until its response headers',
      labelName: 'provider',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    upstreamFailures: new Counter({
      name: 'modelgate_upstream_failures_total',
      help: 'Upstream attempts that failed, by provider and reason',
      labelNames: ['provider', 'reason'] as const,
      registers: [registry],
    }),
    tokens: new Counter({
      name: 'modelgate_tokens_total',
      help: 'Tokens billed, by model and direction',
      labelNames: ['model', 'direction'] as const,
      registers: [registry],
      collect() {
        tokenCounts.drain((model, direction, n) => this.inc({ model, direction }, n));
      },
    }),
    cost: new Counter({
      name: 'modelgate_cost_usd_total',
      help: 'Amount charged to accounts, USD',
      labelNames: ['model'] as const,
      registers: [registry],
      collect() {
        costCounts.drain((model, _, usd) => this.inc({ model }, usd));
      },
    }),
    probes: new Counter({
      name: 'modelgate_provider_probe_total',
      help: 'Scheduled health probes this instance sent, by provider and result (ok or fail)',
      labelNames: ['provider', 'result'] as const,
      registers: [registry],
    }),
    probeLatency: new Histogram({
      name: 'modelgate_provider_probe_latency_seconds',
      help: 'Time a health probe took, by provider',
      labelNames: ['provider'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    providerHealthy: new Gauge({
      name: 'modelgate_provider_healthy',
      help: 'Whether the health probes keep the provider in rotation (1) or took it out (0)',
      labelNames: ['provider'] as const,
      registers: [registry],
    }),
    openReservations: new Gauge({
      name: 'modelgate_open_reservations',
      help: 'Balance reservations held by requests in flight',
      registers: [registry],
      collect() {
        this.set(gauges.openReservations());
      },
    }),
    pendingWrites: new Gauge({
      name: 'modelgate_pending_writes',
      help: 'Journal and usage rows waiting for the next database flush',
      registers: [registry],
      collect() {
        this.set(gauges.pendingWrites());
      },
    }),
    flushLag: new Gauge({
      name: 'modelgate_flush_lag_seconds',
      help: 'Age of the oldest journal entry or usage row not yet written to the database (0: none waiting)',
      registers: [registry],
      collect() {
        this.set(gauges.flush().lagMs / 1000);
      },
    }),
    deadLetters: new Counter({
      name: 'modelgate_dead_letters_total',
      help: 'Usage rows the database refused, moved to the dead_letters table (those there at start included)',
      registers: [registry],
      collect: tally((health) => health.deadLetters),
    }),
    stuckEntries: new Gauge({
      name: 'modelgate_journal_entries_stuck',
      help: 'Journal entries the database refused even with a sanitised note: kept in memory and retried (should be 0)',
      registers: [registry],
      collect() {
        this.set(gauges.flush().stuckEntries);
      },
    }),
    failedFlushes: new Counter({
      name: 'modelgate_flush_failures_total',
      help: 'Write-behind flushes that failed because the database was unavailable (the batch is kept and retried)',
      registers: [registry],
      collect: tally((health) => health.failedFlushes),
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
