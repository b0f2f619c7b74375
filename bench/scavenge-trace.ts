// What V8's young-generation collections copy and promote per scavenge, by isolate, for the
// gateway and the bare relay side by side (issue 21: what outlives two scavenges is promoted, and
// only a full GC — a stop of the event loop — frees it; what survives one is copied, and the
// scavenge's pause grows with it). Each server warmed up as the bench warms it, then one measured
// run at 64 connections with `--trace-gc-nvp`; the scavenges of the measured run are averaged.
//
//   node bench/scavenge-trace.ts     the first of BENCH_LATENCIES (default 0) and BENCH_MODES
//                                    (default json); BENCH_GATEWAY_ENV for the gateway's settings,
//                                    e.g. MODELGATE_SYNC_INTERVAL_MS=100
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startRelay, startSimulator } from './servers.ts';
import { gatewayNodeArgs, latencies, modes, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp, tmp } from './workspace.ts';
import { measuredRun, warmUp, type MeasuredRun } from './wrk.ts';

const TRACE = '--trace-gc-nvp';
if (!gatewayNodeArgs.includes(TRACE)) gatewayNodeArgs.push(TRACE);
const latency = latencies[0]!;
const mode = (modes[0] ?? 'json') as Mode;

const field = (line: string, name: string) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? Number.NaN);

/** The measured run's collections: full ones by kind, scavenges by isolate. */
function report(server: string, text: string, run: MeasuredRun, cpuUs: number): void {
  const requests = run.result.requests;
  console.log(`${server}: ${latency} ms upstream, ${mode}, 64 connections: ${requests} requests, ${(cpuUs / requests).toFixed(0)} µs of CPU per request`);
  const majors = new Map<string, number[]>();
  const byIsolate = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const kind = /\bgc=(\w+)/.exec(line)?.[1];
    if (!kind) continue;
    const isolate = /^\[\d+:(0x[0-9a-f]+)/.exec(line)?.[1] ?? '?';
    if (kind !== 's') {
      const key = `${kind} on isolate ${isolate}`;
      (majors.get(key) ?? majors.set(key, []).get(key)!).push(field(line, 'pause'));
      continue;
    }
    (byIsolate.get(isolate) ?? byIsolate.set(isolate, []).get(isolate)!).push(line);
  }
  // full collections stop the event loop longest: their count and pauses, by kind and isolate
  for (const [kind, pauses] of majors) console.log(`  gc=${kind}: ${pauses.length} collections, pauses ${pauses.map((p) => p.toFixed(1)).join(', ')} ms`);
  for (const [isolate, lines] of byIsolate) {
    const sum = (name: string) => lines.reduce((total, line) => total + field(line, name), 0);
    const mean = (name: string) => sum(name) / lines.length;
    console.log(
      `  isolate ${isolate}: ${lines.length} scavenges, mean pause ${mean('pause').toFixed(2)} ms (${((sum('pause') * 1000) / requests).toFixed(1)} µs a request), ` +
        `allocated ${(mean('allocated') / 1024).toFixed(0)} KB, survived ${(mean('new_space_survived') / 1024).toFixed(0)} KB, promoted ${(mean('promoted') / 1024).toFixed(0)} KB per scavenge`,
    );
    // where a pause goes: V8's scavenge phases (ms, mean of the run), the larger ones
    const phases = [...new Set(lines.flatMap((line) => [...line.matchAll(/\b((?:background\.)?scavenge\.[\w.]+)=/g)].map((m) => m[1]!)))];
    const timed = phases.map((name) => [name, mean(name)] as const).filter(([, ms]) => ms >= 0.02);
    console.log(`    phases (mean ms): ${timed.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')}`);
  }
}

createTmp();
const sim = await startSimulator(latency);
try {
  const gateway = await startGateway(sim);
  try {
    await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
    const logPath = join(tmp, 'gateway-1.log');
    const from = readFileSync(logPath, 'utf8').length;
    const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, 64, sim, gateway.pid);
    report('gateway', readFileSync(logPath, 'utf8').slice(from), run, run.gatewayUs);
  } finally {
    await stop(gateway.child);
  }
  // the relay prints its trace on stdout, after its listening line
  const relay = await startRelay(sim, 256, [TRACE]);
  try {
    const authorization = `Bearer ${SIM_KEY}`;
    await warmUp(relay.chatUrl, authorization, mode, 64);
    let text = '';
    const collect = (chunk: string) => (text += chunk);
    relay.child.stdout!.on('data', collect);
    const run = await measuredRun(relay.chatUrl, authorization, mode, 64, sim, relay.pid);
    relay.child.stdout!.off('data', collect);
    report('relay', text, run, run.gatewayUs);
  } finally {
    await stop(relay.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
