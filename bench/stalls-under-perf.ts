// The measured run of bench/stall-trace.ts and bench/core-trace.ts: a warm gateway started with
// bench/stall-preload.mjs, one measured run at 64 connections under `perf record` (the options
// given), and the event-loop stalls the preload logged inside it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayProcess } from './gateway.ts';
import { track } from './processes.ts';
import type { Mode } from './results.ts';
import type { Simulator } from './servers.ts';
import { measuredRun, warmUp, type MeasuredRun } from './wrk.ts';

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
