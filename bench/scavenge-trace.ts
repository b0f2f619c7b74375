// What V8's young-generation collections copy and promote per scavenge, by isolate (issue 21: what
// outlives two scavenges is promoted, and only a full GC — a stop of the event loop — frees it).
// One gateway, warmed up as the bench warms it, then one measured run at 64 connections with
// `--trace-gc-nvp`; the scavenges of the later part of the log (the measured run) are averaged.
//
//   node bench/scavenge-trace.ts     the first of BENCH_LATENCIES (default 0) and BENCH_MODES
//                                    (default json); BENCH_GATEWAY_ENV for the gateway's settings,
//                                    e.g. MODELGATE_SYNC_INTERVAL_MS=100
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator } from './servers.ts';
import { gatewayNodeArgs, latencies, modes } from './settings.ts';
import { createTmp, removeTmp, tmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

if (!gatewayNodeArgs.includes('--trace-gc-nvp')) gatewayNodeArgs.push('--trace-gc-nvp');
const latency = latencies[0]!;
const mode = (modes[0] ?? 'json') as Mode;

createTmp();
const sim = await startSimulator(latency);
try {
  const gateway = await startGateway(sim);
  try {
    await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
    const logPath = join(tmp, 'gateway-1.log');
    const from = readFileSync(logPath, 'utf8').length;
    const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, 64, sim, gateway.pid);
    const text = readFileSync(logPath, 'utf8').slice(from);
    console.log(`${latency} ms upstream, ${mode}, 64 connections: ${run.result.requests} requests, ${(run.gatewayUs / run.result.requests).toFixed(0)} µs of CPU per request`);
    const field = (line: string, name: string) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? Number.NaN);
    // full collections stop the event loop longest: their count and pauses, by kind
    const majors = new Map<string, number[]>();
    for (const line of text.split('\n')) {
      const kind = /\bgc=(\w+)/.exec(line)?.[1];
      if (!kind || kind === 's') continue;
      majors.set(kind, [...(majors.get(kind) ?? []), field(line, 'pause')]);
    }
    for (const [kind, pauses] of majors) console.log(`gc=${kind}: ${pauses.length} collections, pauses ${pauses.map((p) => p.toFixed(1)).join(', ')} ms`);
    const byIsolate = new Map<string, string[]>();
    for (const line of text.split('\n')) {
      if (!line.includes('gc=s')) continue;
      const isolate = /^\[\d+:(0x[0-9a-f]+)/.exec(line)?.[1] ?? '?';
      byIsolate.set(isolate, [...(byIsolate.get(isolate) ?? []), line]);
    }
    for (const [isolate, lines] of byIsolate) {
      const mean = (name: string) => lines.reduce((sum, line) => sum + field(line, name), 0) / lines.length;
      console.log(
        `isolate ${isolate}: ${lines.length} scavenges, mean pause ${mean('pause').toFixed(2)} ms, allocated ${(mean('allocated') / 1024).toFixed(0)} KB, survived ${(mean('new_space_survived') / 1024).toFixed(0)} KB, promoted ${(mean('promoted') / 1024).toFixed(0)} KB per scavenge`,
      );
    }
  } finally {
    await stop(gateway.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
