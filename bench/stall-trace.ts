// What stalls the event loop under load (issue 21's tail): a gateway as the bench starts it, at 64
// connections against the 50 ms upstream, with a preload that logs each stall of ≥ 8 ms
// (bench/stall-preload.mjs); perf samples every thread of it on CPU time with the same clock, and
// the longest stalls of the measured run are printed with the threads and frames that ran during
// each. A stall with few samples in it is time the gateway was not on the core at all.
//
//   node bench/stall-trace.ts            AB_MODE json | stream, AB_LATENCY (upstream ms, 50), STALLS (how many to print, 12),
//                                      STALL_MS (the shortest stall logged, 8)
import { execFileSync } from 'node:child_process';
import { traceStalls } from './stalls-under-perf.ts';

// names for JIT-compiled frames (/tmp/perf-<pid>.map)
const nodeArgs = ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'];
await traceStalls('stalls.data', nodeArgs, (gateway, out) => ['-e', 'task-clock', '-F', '999', '-g', '-p', String(gateway.pid), '-o', out], ({ run, stalls: lags, startedNs, out }) => {
  process.stdout.write(`p50 ${run.result.p50Ms} p99 ${run.result.p99Ms} CPU ${(run.gatewayUs / run.result.requests).toFixed(0)} µs/req\n`);
  const script = execFileSync('perf', ['script', '-i', out, '-F', 'comm,tid,time,ip,sym', '--ns'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const samples = script.split(/\n(?=\S)/).filter((b) => b.trim()).map((block) => {
    const [head = '', ...frames] = block.split('\n');
    const m = /^\s*(\S+)\s+(\d+)\s+([\d.]+):/.exec(head);
    const timeNs = m ? BigInt(m[3]!.replace('.', '')) : 0n;
    return { thread: m?.[1] ?? '?', timeNs, frames: frames.map((f) => f.trim().split(/\s+/).slice(1).join(' ')).filter(Boolean) };
  });
  process.stdout.write(`${lags.length} stalls ≥ ${process.env.STALL_MS ?? 8} ms in the measured run; ${samples.length} samples\n`);
  for (const lag of lags.sort((a, b) => b.ms - a.ms).slice(0, Number(process.env.STALLS ?? 12))) {
    const inside = samples.filter((s) => s.timeNs >= lag.from && s.timeNs <= lag.to);
    const byThread = new Map<string, number>();
    const byFrame = new Map<string, number>();
    for (const s of inside) {
      byThread.set(s.thread, (byThread.get(s.thread) ?? 0) + 1);
      // the innermost JavaScript frame names what the thread was doing; native frames above it say how
      const js = s.frames.findIndex((f) => f.startsWith('JS:'));
      const shown = js < 0 ? s.frames.slice(0, 3) : [...s.frames.slice(Math.max(0, js - 1), js + 1), ...s.frames.slice(js + 1).filter((f) => f.includes('file:///work')).slice(0, 2)];
      const key = `${s.thread}: ${shown.filter((f) => !f.startsWith('[unknown]')).join(' < ')}`;
      byFrame.set(key, (byFrame.get(key) ?? 0) + 1);
    }
    process.stdout.write(`\nstall ${lag.ms.toFixed(1)} ms at +${Number(lag.from - startedNs) / 1e6 | 0} ms: ${inside.length} samples ${JSON.stringify(Object.fromEntries(byThread))}\n`);
    for (const [frame, n] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 10)) process.stdout.write(`  ${n}× ${frame.slice(0, 400)}\n`);
  }
});
