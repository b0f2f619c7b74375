// The load generator: wrk (one thread, on the load core) against one URL, its figures and its own
// CPU time; the warm-up before each measured run, and a measured run with the CPU of every
// process involved.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CLK_TCK, cpuMicros, otherCores, sampleLoad, stealCores } from './machine.ts';
import { cleanEnv, outputOf, track } from './processes.ts';
import type { Mode, WrkResult } from './results.ts';
import type { Simulator } from './servers.ts';
import { BENCH, BODIES, durationS, leavingClient, LOAD_CORE, MAX_WARMUP_S, MODEL, warmupRequests, warmupS } from './settings.ts';

/** `staggerMs`: the connections' first requests spread over that many ms (post.lua), not sent at once */
async function wrk(url: string, authorization: string, mode: Mode, connections: number, seconds: number, staggerMs?: number): Promise<WrkResult> {
  const args = ['-c', LOAD_CORE, 'wrk', '-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '10s', '--latency', '-s', join(BENCH, 'post.lua'), url];
  // through a shell that reaps wrk and then prints its own /proc stat: cutime+cstime = wrk's CPU time
  const script = 'taskset "$@"; code=$?; echo "BENCH_SHELL_STAT $(cat /proc/$$/stat)"; exit $code';
  const child = track(
    spawn('sh', ['-c', script, 'sh', ...args], { env: cleanEnv({ BENCH_BODY: BODIES[mode], BENCH_AUTH: authorization, ...(staggerMs !== undefined && { BENCH_STAGGER_MS: String(staggerMs), BENCH_STAGGER_CONNECTIONS: String(connections) }) }), stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const { code, stdout, stderr } = await outputOf(child);
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${stdout}\n${stderr}`);
  const raw = JSON.parse(line.slice('BENCH_JSON '.length)) as {
    requests: number;
    duration_us: number;
    errors: WrkResult['errors'];
    latency_us: { p50: number; p90: number; p99: number; mean: number; max: number };
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const shellStat = stdout.split('\n').find((l) => l.startsWith('BENCH_SHELL_STAT ')) ?? '';
  const statFields = shellStat.slice(shellStat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3: cutime is field 16, cstime field 17
  const wrkCpuUs = ((Number(statFields[13]) + Number(statFields[14])) * 1e6) / CLK_TCK;
  return {
    requests: raw.requests,
    durationS: raw.duration_us / 1e6,
    rps: raw.requests / (raw.duration_us / 1e6),
    p50Ms: raw.latency_us.p50 / 1000,
    p90Ms: raw.latency_us.p90 / 1000,
    p99Ms: raw.latency_us.p99 / 1000,
    meanMs: raw.latency_us.mean / 1000,
    maxMs: raw.latency_us.max / 1000,
    errors: raw.errors,
    non2xx,
    wrkCpuUs: Number.isFinite(wrkCpuUs) ? wrkCpuUs : 0,
  };
}

/**
 * Warm-up before a measured run: BENCH_WARMUP seconds at 64 connections (or more), repeated until
 * BENCH_WARMUP_REQUESTS were served (at most 30 s), so that the JIT has seen tens of thousands of
 * requests whatever the case's concurrency and upstream latency — a production gateway is warm —
 * then a second at the case's own concurrency to settle the connection pools. Under the first
 * run, one client leaves while its request waits on the upstream (leaveMidRequest; BENCH_LEAVE=0: none).
 */
export async function warmUp(url: string, authorization: string, mode: Mode, connections: number): Promise<void> {
  const left = leavingClient ? leaveMidRequest(url, authorization) : Promise.resolve();
  // by count too: against a 50 ms upstream 5 s are ~6,000 requests, and V8 was still compiling
  // (15 % of the gateway's CPU in the measured run, against 2 % when saturated)
  let served = 0;
  for (let spent = 0; spent === 0 || (served < warmupRequests && spent + warmupS <= MAX_WARMUP_S); spent += warmupS) {
    served += (await wrk(url, authorization, mode, Math.max(64, connections), warmupS)).requests;
  }
  if (connections < 64) await wrk(url, authorization, mode, connections, 1);
  await left;
}

/**
 * A client that leaves a second after sending, while the simulator holds its answer for five
 * (`[[sim:slow]]`). The gateway charges such a client its prompt, counted locally: in a gateway
 * of plain chats whose vendor reports usage that is its first local count, which starts the
 * tokenizer thread and builds its tables (~0.2–0.3 s of CPU; again only after 30 s unused). A gateway
 * in production has seen clients leave; without this, that one-off cost fell into whichever
 * measured run first ended with requests in flight (wrk stops with all its connections busy).
 */
export async function leaveMidRequest(url: string, authorization: string): Promise<void> {
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: '[[sim:slow=5000]] A client that leaves.' }] });
  await fetch(url, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(1000) })
    .then((response) => response.arrayBuffer())
    .catch(() => undefined);
}

export interface MeasuredRun {
  result: WrkResult;
  /** CPU time the simulator used during the run, µs */
  simUs: number;
  /** CPU time the gateway (or relay) used during the run, µs; 0 for a direct run */
  gatewayUs: number;
  otherLoadCores: number;
  /** the part of otherLoadCores that was the host's steal */
  stealCores: number;
}

/** One measured wrk run with the CPU of every process involved (`staggerMs`: see wrk above). */
export async function measuredRun(url: string, authorization: string, mode: Mode, connections: number, sim: Simulator, gatewayPid?: number, staggerMs?: number): Promise<MeasuredRun> {
  const load0 = sampleLoad();
  const sim0 = cpuMicros(sim.pid);
  const gw0 = gatewayPid === undefined ? 0 : cpuMicros(gatewayPid);
  const result = await wrk(url, authorization, mode, connections, durationS, staggerMs);
  const simUs = cpuMicros(sim.pid) - sim0;
  const gatewayUs = gatewayPid === undefined ? 0 : cpuMicros(gatewayPid) - gw0;
  const load1 = sampleLoad();
  const otherLoadCores = otherCores(load0, load1, simUs + gatewayUs + result.wrkCpuUs);
  return { result, simUs, gatewayUs, otherLoadCores, stealCores: stealCores(load0, load1) };
}
