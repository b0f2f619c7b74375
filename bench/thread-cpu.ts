// Where a loaded gateway's CPU goes, by thread: each thread's time on a CPU from
// /proc/<pid>/task/<tid>/schedstat over one measured run at 64 connections against the 50 ms upstream
// (the gateway is pinned to one core: its threads share it), after the bench's warm-up.
//
// Beside each thread, its context switches and minor page faults a request, and the share of its
// time in the kernel (stat's stime over utime + stime, 10-ms ticks).
//
//   node bench/thread-cpu.ts            AB_MODE json | stream (default json), AB_LATENCY (upstream
//                                       ms, 50), AB_CONNECTIONS (the measured run's, 64),
//                                       AB_TARGET gateway | relay (bench/bare-relay.ts; default gateway)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { gcDelta, gcTotals, startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { SIM_KEY } from './settings.ts';
import { startRelay, startSimulator } from './servers.ts';
import { createTmp, removeTmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

const mode = (process.env.AB_MODE ?? 'json') as Mode;
const connections = Number(process.env.AB_CONNECTIONS ?? 64);

function switches(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const name = /Name:\s+(\S+)/.exec(status)?.[1] ?? '?';
      const count = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      out.set(`${name}#${tid}`, count('voluntary_ctxt_switches') + count('nonvoluntary_ctxt_switches'));
    } catch {
      // the thread ended
    }
  }
  return out;
}

/**
 * Each thread's user and system ticks (stat's fields 14 and 15, after the name in parentheses) and
 * its minor page faults (field 10): kernel time that no system call shows.
 */
function statCounts(pid: number): Map<string, { user: number; system: number; faults: number }> {
  const out = new Map<string, { user: number; system: number; faults: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      out.set(`${name}#${tid}`, { user: Number(fields[11]), system: Number(fields[12]), faults: Number(fields[7]) });
    } catch {
      // the thread ended
    }
  }
  return out;
}

function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      // schedstat's first field: the thread's time on a CPU in ns, exact (stat's utime + stime count 10-ms ticks)
      const onCpuNs = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out.set(`${name}#${tid}`, onCpuNs / 1000);
    } catch {
      // the thread ended
    }
  }
  return out;
}

createTmp();
const sim = await startSimulator(Number(process.env.AB_LATENCY ?? 50));
try {
  // the relay forwards the simulator's key and has no /metrics to read collections from
  const gateway =
    process.env.AB_TARGET === 'relay'
      ? await startRelay(sim).then((relay) => ({ ...relay, origin: undefined, authorization: `Bearer ${SIM_KEY}` }))
      : await startGateway(sim);
  try {
    await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
    // diagnosis: lower the scheduling priority of the named threads (RENICE="WorkerThread:19,V8Worker:10")
    for (const spec of (process.env.RENICE ?? '').split(',').filter(Boolean)) {
      const [prefix, nice] = spec.split(':') as [string, string];
      for (const name of threads(gateway.pid).keys()) {
        if (name.startsWith(prefix)) execFileSync('renice', ['-n', nice, '-p', name.split('#')[1]!]);
      }
    }
    const before = threads(gateway.pid);
    const counts0 = statCounts(gateway.pid);
    const switches0 = switches(gateway.pid);
    const gc0 = gateway.origin === undefined ? undefined : await gcTotals(gateway.origin);
    const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, connections, sim, gateway.pid);
    const gc = gateway.origin === undefined ? undefined : gcDelta(gc0, await gcTotals(gateway.origin));
    const after = threads(gateway.pid);
    const counts1 = statCounts(gateway.pid);
    const switches1 = switches(gateway.pid);
    const requests = run.result.requests;
    process.stdout.write(`${requests} requests, ${(run.gatewayUs / requests).toFixed(0)} µs CPU/request, p50 ${run.result.p50Ms.toFixed(2)} p99 ${run.result.p99Ms.toFixed(2)} ms, GC ${JSON.stringify(gc)}, other load ${(run.otherLoadCores * 100).toFixed(0)}%\n`);
    for (const [name, us] of [...after].sort((a, b) => b[1] - a[1])) {
      const used = us - (before.get(name) ?? 0);
      const woke = (switches1.get(name) ?? 0) - (switches0.get(name) ?? 0);
      const t0 = counts0.get(name) ?? { user: 0, system: 0, faults: 0 };
      const t1 = counts1.get(name) ?? t0;
      const user = t1.user - t0.user;
      const system = t1.system - t0.system;
      const kernel = user + system > 0 ? `${Math.round((100 * system) / (user + system))} % in the kernel` : '';
      const faults = `${((t1.faults - t0.faults) / requests).toFixed(2)} page faults/request`;
      if (used > 0) process.stdout.write(`  ${name.padEnd(28)} ${(used / requests).toFixed(1).padStart(7)} µs/request  ${(woke / requests).toFixed(2)} context switches/request  ${faults}  ${kernel}\n`);
    }
  } finally {
    await stop(gateway.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
