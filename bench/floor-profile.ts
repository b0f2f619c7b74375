// Where the relay, the floor and the gateway spend their CPU, side by side (issue 21): each server
// in turn at 64 connections, warmed up as the bench warms it, then one measured wrk run under
// `perf record` (task-clock, every thread), each sample charged to a stage by
// bench/perf-attribution.ts. Printed in µs per request — a stage's share of the samples times the
// server's CPU per request read from /proc over the same run (perf's own overhead included) — so
// the gateway's stages read directly against the floor's and the relay's; then the event loop's
// time by the innermost JavaScript function on the stack.
//
//   node bench/floor-profile.ts    the first of BENCH_LATENCIES (default 50 ms) and of BENCH_MODES
//                                  (default json), and the bench's other settings (BENCH_DURATION,
//                                  BENCH_WARMUP_REQUESTS…); profiles in bench/results/profiles/floor-*.data.jit
//                                  (readable while the run's temporary directory lasts: BENCH_KEEP_TMP=1)
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from './gateway.ts';
import { attribute, type Attribution } from './perf-attribution.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { FLOOR_CLIENT_KEY, startFloorRelay, startPerf, startRelay, startSimulator } from './servers.ts';
import { gatewayNodeArgs, latencies, modes, RESULTS, SIM_KEY } from './settings.ts';
import { codeRoot, createTmp, removeTmp, sourcesEntry, tmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

const CONNECTIONS = 64;
/**
 * JIT-compiled functions get their names from a JIT dump (`--perf-prof`, merged by `perf inject
 * --jit`), which records when each piece of code was made: V8 reuses the address of discarded
 * code, and a plain map (`--perf-basic-prof`) then names some frames after a later function. The
 * dump, its merged code objects and V8's log go to the server's own folder in the temporary directory.
 * Writing the dump makes every compile dearer: the "JIT compilation" row reads high.
 */
const jitNaming = (dir: string) => {
  mkdirSync(dir, { recursive: true });
  return ['--perf-prof', `--perf-prof-path=${dir}`, '--no-logfile-per-isolate', `--logfile=${join(dir, 'v8.log')}`, '--interpreted-frames-native-stack'];
};
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
  gatewayNodeArgs.push(...jitNaming(join(tmp, 'jit-gateway')));
  const relay = await startRelay(sim, 256, jitNaming(join(tmp, 'jit-relay')));
  const floor = await startFloorRelay(sim, tmp, 'floor-relay.ts', jitNaming(join(tmp, 'jit-floor')));
  // from the sources: the stages are told apart by file name, and the bundle's chunks mix many files
  const gateway = await startGateway(sim, {}, true, { main: sourcesEntry(codeRoot) });
  const targets = [
    { name: 'relay', url: relay.chatUrl, auth: `Bearer ${SIM_KEY}`, process: relay },
    { name: 'floor', url: floor.chatUrl, auth: `Bearer ${FLOOR_CLIENT_KEY}`, process: floor },
    { name: 'gateway', url: gateway.chatUrl, auth: gateway.authorization, process: gateway },
  ];
  try {
    for (const target of targets) {
      await warmUp(target.url, target.auth, mode, CONNECTIONS);
      const name = `floor-${target.name}-${latency}ms-${mode}`;
      const recorder = startPerf(target.process.pid, name, ['-k', 'mono']);
      const run = await measuredRun(target.url, target.auth, mode, CONNECTIONS, sim, target.process.pid);
      recorder.kill('SIGINT');
      await new Promise((resolve) => recorder.once('exit', resolve));
      const cpuUs = run.gatewayUs / run.result.requests;
      process.stderr.write(`floor-profile: ${target.name} ${cpuUs.toFixed(0)} µs/request under perf, p99 ${run.result.p99Ms} ms\n`);
      const recorded = join(RESULTS, 'profiles', `${name}.data`);
      execFileSync('perf', ['inject', '--jit', '-i', recorded, '-o', `${recorded}.jit`], { stdio: 'ignore' });
      profiled.push({ name: target.name, cpuUs, attribution: attribute(`${recorded}.jit`) });
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
// the gateway's event loop by function: where its own code (and what it calls) spends the time
const FUNCTIONS = 30;
process.stdout.write(`\nthe event loop by innermost JavaScript function (the ${FUNCTIONS} largest for the gateway):\n\n${head}\n${rows((a) => a.byFunction).slice(0, FUNCTIONS).join('\n')}\n`);
