// Where the gateway's added latency goes (issue 21's tail): one gateway as the bench starts it, at
// 64 connections against the 50 ms upstream, warmed up as the bench warms it; then a measured run
// straight to the simulator and one through the gateway, with a preload
// (bench/latency-split-preload.mjs) timing each request in the gateway's handler and each upstream
// request as the gateway sees it. Prints p50 / p90 / p99 of each: direct (wrk), through the gateway
// (wrk), in the handler, the upstream leg.
//
//   node bench/latency-split.ts     AB_MODE json | stream (json), AB_LATENCY (upstream ms, 50)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import { percentile, type Mode } from './results.ts';
import { startSimulator } from './servers.ts';
import { BENCH, gatewayNodeArgs, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp, tmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

const mode = (process.env.AB_MODE ?? 'json') as Mode;
gatewayNodeArgs.push(`--import=${join(BENCH, 'latency-split-preload.mjs')}`);
createTmp();
const file = join(tmp, 'latency-split.jsonl');
const sim = await startSimulator(Number(process.env.AB_LATENCY ?? 50));
try {
  const gateway = await startGateway(sim, { LATENCY_SPLIT_FILE: file });
  try {
    await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
    const direct = await measuredRun(sim.chatUrl, `Bearer ${SIM_KEY}`, mode, 64, sim);
    // what the warm-up left is dropped: the next line is the measured run's alone
    process.kill(gateway.pid, 'SIGWINCH');
    await sleep(300);
    const through = await measuredRun(gateway.chatUrl, gateway.authorization, mode, 64, sim, gateway.pid);
    process.kill(gateway.pid, 'SIGWINCH');
    await sleep(300);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const split = JSON.parse(lines.at(-1)!) as { handler: number[]; upstream: number[] };
    const row = (name: string, p50: number, p90: number, p99: number) => console.log(`${name.padEnd(36)} p50 ${p50.toFixed(2)}  p90 ${p90.toFixed(2)}  p99 ${p99.toFixed(2)} ms`);
    const of = (name: string, sorted: number[]) => row(`${name} (${sorted.length})`, percentile(sorted, 0.5), percentile(sorted, 0.9), percentile(sorted, 0.99));
    row('direct to the simulator (wrk)', direct.result.p50Ms, direct.result.p90Ms, direct.result.p99Ms);
    row('through the gateway (wrk)', through.result.p50Ms, through.result.p90Ms, through.result.p99Ms);
    of('in the gateway: request → finish', split.handler);
    of('in the gateway: upstream leg', split.upstream);
  } finally {
    await stop(gateway.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
