// Node options or environment for the gateway, A against B on memory (issue 21): fresh gateways
// in turn, each as the bench starts it (bench/gateway.ts: core 0, SQLite, logging), its idle RSS
// 2 s after the two check requests, then the warm-up and one measured run at 64 connections
// against the 50 ms upstream (bench/wrk.ts), and its peak RSS (VmHWM) and CPU per request.
//
//   AB_VARIANTS  JSON list of { "name", "args": node options, "env": extra environment, "main"?: an
//                entry point other than the bench's (an older commit's export, say) }, e.g.
//                '[{"name":"V8 growth","args":["--max-semi-space-size=8","--heap-growing-percent=0"],"env":{}},
//                  {"name":"as shipped","args":["--max-semi-space-size=8"],"env":{}}]'
//   AB_ROUNDS    rounds of all variants in turn (default 3); AB_MODE json | stream (default json)
//   AB_LATENCY   the upstream latency in ms (default 50)
// The bench's own settings apply (BENCH_QUICK, BENCH_DURATION, BENCH_WARMUP_REQUESTS…).
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gcDelta, gcTotals, startGateway } from './gateway.ts';
import { statusMb } from './machine.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator } from './servers.ts';
import { gatewayNodeArgs } from './settings.ts';
import { createTmp, removeTmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

interface Variant {
  name: string;
  args: string[];
  env: Record<string, string>;
  main?: string;
}

const variants = JSON.parse(process.env.AB_VARIANTS ?? '[]') as Variant[];
if (variants.length === 0) throw new Error('AB_VARIANTS: a JSON list of { name, args, env } (see the head of bench/node-options-ab.ts)');
const rounds = Number(process.env.AB_ROUNDS ?? 3);
const mode = (process.env.AB_MODE ?? 'json') as Mode;

createTmp();
const sim = await startSimulator(Number(process.env.AB_LATENCY ?? 50));
try {
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) {
      // startGateway reads the node options from this list
      gatewayNodeArgs.splice(0, gatewayNodeArgs.length, ...variant.args);
      const gateway = await startGateway(sim, variant.env, true, variant.main ? { main: resolve(variant.main) } : {});
      try {
        await sleep(2000);
        const idle = statusMb(gateway.pid, 'VmRSS');
        await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
        const gc0 = await gcTotals(gateway.origin);
        const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, 64, sim, gateway.pid);
        const gc = gcDelta(gc0, await gcTotals(gateway.origin));
        const cpu = run.gatewayUs / run.result.requests;
        const gcText = gc ? `GC ${gc.minorCount} minor (${((gc.minorSeconds / Math.max(1, gc.minorCount)) * 1000).toFixed(1)} ms) ${gc.majorCount} major (${(gc.majorSeconds * 1000).toFixed(0)} ms)` : 'GC ?';
        const line = `${variant.name.padEnd(32)} idle ${idle.toFixed(0)} MB  peak ${statusMb(gateway.pid, 'VmHWM').toFixed(0)} MB  CPU ${cpu.toFixed(0)} µs/request  p50 ${run.result.p50Ms.toFixed(2)} p99 ${run.result.p99Ms.toFixed(2)} ms  ${gcText}  (other load ${(run.otherLoadCores * 100).toFixed(0)} % of a core)`;
        process.stdout.write(`${line}\n`);
      } finally {
        await stop(gateway.child);
      }
    }
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
