// Preload for bench/stall-trace.ts: logs each event-loop stall of ≥ 8 ms to stderr as
// "LAG <from ns> <to ns> <ms>" (CLOCK_MONOTONIC, the clock perf is told to use), from a 2-ms timer.
let last = process.hrtime.bigint();
const tick = () => {
  const now = process.hrtime.bigint();
  const lagMs = Number(now - last) / 1e6 - 2;
  if (lagMs >= 8) process.stderr.write(`LAG ${last} ${now} ${lagMs.toFixed(1)}\n`);
  last = now;
  setTimeout(tick, 2).unref();
};
setTimeout(tick, 2).unref();
