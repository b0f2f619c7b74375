// Where the relay, the floor and the gateway spend their CPU, side by side (issue 21): each server
// in turn at 64 connections, warmed up as the bench warms it, then one measured wrk run under
// `perf record` (task-clock, every thread), each sample charged to a stage by
// bench/perf-attribution.ts. Printed in µs per request — a stage's share of the samples times the
// server's CPU per request read from /proc over the same run (perf's own overhead included) — so
// the gateway's stages read directly against the floor's and the relay's.
//
//   node bench/floor-profile.ts    the first of BENCH_LATENCIES (default 50 ms) and of BENCH_MODES
//                                  (default json), and the bench's other settings (BENCH_DURATION,
//                                  BENCH_WARMUP_REQUESTS…); profiles in bench/results/profiles/floor-*.data
import { startGateway } from './gateway.ts';
import { attribute, type Attribution } from './perf-attribution.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { FLOOR_CLIENT_KEY, startFloorRelay, startPerf, startRelay, startSimulator } from './servers.ts';
import { gatewayNodeArgs, latencies, modes, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp, tmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

const CONNECTIONS = 64;
/** JIT-compiled functions get names in perf's reports through /tmp/perf-<pid>.map */
const PERF_NAMES = ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'];
const latency = latencies[0]!;
const mode = (modes[0] ?? 'json') as Mode;

interface Profiled {
  name: string;
  cpuUs: number;
  attribution: Attribution;
}

createTmp();
const profiled: Profiled[] = [];
const sim = await startSimulator(latency);
try {
  gatewayNodeArgs.push(...PERF_NAMES);
  const relay = await startRelay(sim, 256, PERF_NAMES);
  const floor = await startFloorRelay(sim, tmp, 'floor-relay.ts', PERF_NAMES);
  const gateway = await startGateway(sim);
  const targets = [
    { name: 'relay', url: relay.chatUrl, auth: `Bearer ${SIM_KEY}`, process: relay },
    { name: 'floor', url: floor.chatUrl, auth: `Bearer ${FLOOR_CLIENT_KEY}`, process: floor },
    { name: 'gateway', url: gateway.chatUrl, auth: gateway.authorization, process: gateway },
  ];
  try {
    for (const target of targets) {
      await warmUp(target.url, target.auth, mode, CONNECTIONS);
      const name = `floor-${target.name}-${latency}ms-${mode}`;
      const recorder = startPerf(target.process.pid, name);
      const run = await measuredRun(target.url, target.auth, mode, CONNECTIONS, sim, target.process.pid);
      recorder.kill('SIGINT');
      await new Promise((resolve) => recorder.once('exit', resolve));
      const cpuUs = run.gatewayUs / run.result.requests;
      process.stderr.write(`floor-profile: ${target.name} ${cpuUs.toFixed(0)} µs/request under perf, p99 ${run.result.p99Ms} ms\n`);
      profiled.push({ name: target.name, cpuUs, attribution: attribute(`bench/results/profiles/${name}.data`) });
    }
  } finally {
    for (const target of targets) await stop(target.process.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}

/** µs per request of each row (a thread or a stage), per server */
function rows(pick: (a: Attribution) => Map<string, number>): string[] {
  const names = new Set(profiled.flatMap((p) => [...pick(p.attribution).keys()]));
  const usOf = (p: Profiled, row: string) => ((pick(p.attribution).get(row) ?? 0) / p.attribution.total) * p.cpuUs;
  return [...names]
    .map((row) => ({ row, us: profiled.map((p) => usOf(p, row)) }))
    .sort((a, b) => b.us.at(-1)! - a.us.at(-1)!)
    .map(({ row, us }) => `| ${row} | ${us.map((u) => u.toFixed(1)).join(' | ')} |`);
}
const head = `| µs per request | ${profiled.map((p) => p.name).join(' | ')} |\n|---|${profiled.map(() => '--:|').join('')}`;
process.stdout.write(`\n${latency} ms upstream, ${mode === 'stream' ? 'streaming' : 'non-streaming'}, ${CONNECTIONS} connections (perf task-clock; CPU per request under perf)\n\n`);
process.stdout.write(`${head}\n| **in all** | ${profiled.map((p) => `**${p.cpuUs.toFixed(0)}**`).join(' | ')} |\n`);
process.stdout.write(`\nby thread:\n\n${head}\n${rows((a) => a.byThread).join('\n')}\n`);
process.stdout.write(`\nby stage (innermost known frame):\n\n${head}\n${rows((a) => new Map([...a.byStage].map(([stage, n]) => [stage, n.all]))).join('\n')}\n`);
