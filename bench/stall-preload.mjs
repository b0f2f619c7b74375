// Preload for bench/stall-trace.ts and bench/core-trace.ts: logs each event-loop stall of ≥
// STALL_MS (8) ms to stderr as "LAG <from ns> <to ns> <ms>" (CLOCK_MONOTONIC, the clock perf is
// told to use), from a 2-ms timer. The event loop's only: node runs a preload in every worker too,
// and a flush thread busy in one SQLite transaction read as a stall of the gateway.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const threshold = Number(process.env.STALL_MS ?? 8);
  let last = process.hrtime.bigint();
  const tick = () => {
    const now = process.hrtime.bigint();
    const lagMs = Number(now - last) / 1e6 - 2;
    if (lagMs >= threshold) process.stderr.write(`LAG ${last} ${now} ${lagMs.toFixed(1)}\n`);
    last = now;
    setTimeout(tick, 2).unref();
  };
  setTimeout(tick, 2).unref();
}
