// The measured run of bench/stall-trace.ts and bench/core-trace.ts: a warm gateway started with
// bench/stall-preload.mjs, one measured run at 64 connections under `perf record` (the options
// given), and the event-loop stalls the preload logged inside it.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway, type GatewayProcess } from './gateway.ts';
import { stop, track } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator, type Simulator } from './servers.ts';
import { BENCH, gatewayNodeArgs, RESULTS } from './settings.ts';
import { createTmp, removeTmp } from './workspace.ts';
import { measuredRun, warmUp, type MeasuredRun } from './wrk.ts';

export interface StallTrace {
  gateway: GatewayProcess;
  run: MeasuredRun;
  stalls: Stall[];
  startedNs: bigint;
  /** perf's data file */
  out: string;
}

/**
 * The whole tool around the run: a simulator at AB_LATENCY (50 ms), a gateway with the stall
 * preload and `nodeArgs`, the run in AB_MODE (json) under `perf record` with `perfArgs(gateway,
 * out)` into bench/results/profiles/<file>, then `report`; everything stopped after.
 */
export async function traceStalls(file: string, nodeArgs: string[], perfArgs: (gateway: GatewayProcess, out: string) => string[], report: (trace: StallTrace) => void): Promise<void> {
  gatewayNodeArgs.push(`--import=${BENCH}/stall-preload.mjs`, ...nodeArgs);
  createTmp();
  const sim = await startSimulator(Number(process.env.AB_LATENCY ?? 50));
  mkdirSync(join(RESULTS, 'profiles'), { recursive: true });
  const out = join(RESULTS, 'profiles', file);
  try {
    const gateway = await startGateway(sim);
    try {
      const measured = await stallsUnderPerf(gateway, sim, (process.env.AB_MODE ?? 'json') as Mode, perfArgs(gateway, out));
      report({ gateway, out, ...measured });
    } finally {
      await stop(gateway.child);
    }
  } finally {
    await stop(sim.child);
    removeTmp();
  }
}

export interface Stall {
  /** CLOCK_MONOTONIC, ns */
  from: bigint;
  to: bigint;
  ms: number;
}

export async function stallsUnderPerf(gateway: GatewayProcess, sim: Simulator, mode: Mode, perfArgs: string[]): Promise<{ run: MeasuredRun; stalls: Stall[]; startedNs: bigint }> {
  await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
  const perf = track(spawn('perf', ['record', '-k', 'CLOCK_MONOTONIC', ...perfArgs], { stdio: 'ignore' }));
  await sleep(500);
  const startedNs = process.hrtime.bigint();
  const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, 64, sim, gateway.pid);
  const endedNs = process.hrtime.bigint();
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.once('exit', resolve));
  const stalls = readFileSync(gateway.stderrPath, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('LAG '))
    .map((line) => line.split(' '))
    .map(([, from, to, ms]) => ({ from: BigInt(from!), to: BigInt(to!), ms: Number(ms) }))
    .filter((stall) => stall.from >= startedNs && stall.to <= endedNs);
  return { run, stalls, startedNs };
}
