// Who held the gateway's core during each event-loop stall (issue 21's tail): a gateway as the
// bench starts it, at 64 connections against the 50 ms upstream, with bench/stall-preload.mjs;
// perf records every context switch on the gateway's core (sched:sched_switch, with call chains)
// over one measured run. For each of the longest stalls: how long each thread held the core, how
// the event loop left it (R: preempted, S: asleep) and to whom, and where it slept. A stall in
// which the event loop slept in epoll_wait while another thread ran was not the event loop's.
//
//   node bench/core-trace.ts      AB_MODE json | stream, AB_LATENCY (upstream ms, 50),
//                                 STALLS (how many to print, 8), STALL_MS (the shortest logged, 8)
import { execFileSync } from 'node:child_process';
import { GATEWAY_CORE } from './settings.ts';
import { traceStalls } from './stalls-under-perf.ts';

await traceStalls('core-switches.data', ['--perf-basic-prof-only-functions'], (_gateway, out) => ['-e', 'sched:sched_switch', '-g', '-C', GATEWAY_CORE, '-o', out], ({ gateway, run, stalls: lags, out }) => {
  process.stdout.write(`p50 ${run.result.p50Ms} p99 ${run.result.p99Ms}\n`);
  const script = execFileSync('perf', ['script', '-i', out, '-F', 'time,trace,ip,sym', '--ns'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  // prev_comm=node prev_pid=123 prev_prio=120 prev_state=R ==> next_comm=... next_pid=...
  const events = script.split(/\n(?=\s*\d+\.\d+:)/).map((block) => {
    const [line = '', ...frames] = block.split('\n');
    const m = /([\d.]+):\s+prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)/.exec(line);
    return m ? { t: BigInt(m[1]!.replace('.', '')), prev: `${m[2]}/${m[3]}`, state: m[4]!, next: `${m[5]}/${m[6]}`, frames: frames.map((f) => f.trim().split(/\s+/).slice(1).join(' ')).filter((f) => f && !f.startsWith('[unknown]')) } : undefined;
  }).filter((e) => e !== undefined);
  const mainTid = String(gateway.pid);
  process.stdout.write(`${lags.length} stalls; ${events.length} switches\n`);
  for (const lag of lags.sort((a, b) => b.ms - a.ms).slice(0, Number(process.env.STALLS ?? 8))) {
    const inside = events.filter((e) => e.t >= lag.from && e.t <= lag.to);
    const onCpu = new Map<string, bigint>();
    let cursor = lag.from;
    let current = events.filter((e) => e.t < lag.from).at(-1)?.next ?? '?';
    const mainOut: string[] = [];
    for (const e of inside) {
      onCpu.set(current, (onCpu.get(current) ?? 0n) + e.t - cursor);
      if (e.prev.endsWith(`/${mainTid}`)) mainOut.push(`${e.state}→${e.next}`);
      cursor = e.t;
      current = e.next;
    }
    onCpu.set(current, (onCpu.get(current) ?? 0n) + lag.to - cursor);
    const shares = [...onCpu].sort((a, b) => Number(b[1] - a[1])).map(([who, ns]) => `${who} ${(Number(ns) / 1e6).toFixed(1)}`).join(', ');
    const sleeps = new Map<string, number>();
    for (const e of inside) if (e.prev.endsWith(`/${mainTid}`) && e.state !== 'R') {
      const key = e.frames.slice(0, 14).join(' < ');
      sleeps.set(key, (sleeps.get(key) ?? 0) + 1);
    }
    for (const [key, n] of sleeps) process.stdout.write(`  main slept ${n}×: ${key.slice(0, 900)}\n`);
    process.stdout.write(`stall ${lag.ms} ms: on core (ms): ${shares}\n  main switched out: ${mainOut.slice(0, 20).join(' ')}\n`);
  }
});
