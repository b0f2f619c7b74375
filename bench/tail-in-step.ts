// What sets the p99 at 64 connections (issue 21's tail target): wrk starts its 64 connections at
// once, so in the first rounds against the 50 ms upstream their answers come back together and
// each waits for the ones before it; the round's last one waits ~64 × a request's CPU. The
// simulator alone ("direct"), the bare relay and the gateway in turn, each warmed up as the bench
// warms it, then two measured runs: one as the bench runs it (connections in step) and one whose
// connections send their first requests spread over one upstream latency, as independent
// clients would (post.lua's BENCH_STAGGER_MS; wrk times a request from its write, after the
// delay). For each: p50, p99 and what the server adds to the direct run's.
//
//   node bench/tail-in-step.ts      AB_MODE json | stream (default json), AB_LATENCY (upstream
//                                   ms, 50), TAIL_ROUNDS (rounds of both runs per server, 2);
//                                   the bench's own settings (BENCH_DURATION, BENCH_WARMUP_REQUESTS…)
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startRelay, startSimulator, type Simulator } from './servers.ts';
import { numberEnv, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

const mode = (process.env.AB_MODE ?? 'json') as Mode;
const latency = numberEnv('AB_LATENCY', 50);
const rounds = numberEnv('TAIL_ROUNDS', 2);
const CONNECTIONS = 64;

interface Pair {
  inStep: { p50: number; p99: number; cpuUs: number };
  spread: { p50: number; p99: number; cpuUs: number };
}

/** The two runs, in turn; which goes first alternates with the round (the second runs on a warmer server). */
async function pairOfRuns(round: number, url: string, authorization: string, sim: Simulator, pid?: number): Promise<Pair> {
  const figures = async (staggerMs?: number) => {
    const run = await measuredRun(url, authorization, mode, CONNECTIONS, sim, pid, staggerMs);
    return { p50: run.result.p50Ms, p99: run.result.p99Ms, cpuUs: pid === undefined ? 0 : run.gatewayUs / run.result.requests };
  };
  if (round % 2 === 1) {
    const spread = await figures(Math.max(1, latency));
    return { spread, inStep: await figures() };
  }
  const inStep = await figures();
  return { inStep, spread: await figures(Math.max(1, latency)) };
}

const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;

createTmp();
const sim = await startSimulator(latency);
try {
  const results: Record<'direct' | 'relay' | 'gateway', Pair[]> = { direct: [], relay: [], gateway: [] };
  const direct = `Bearer ${SIM_KEY}`;
  for (let round = 0; round < rounds; round++) {
    await warmUp(sim.chatUrl, direct, mode, CONNECTIONS);
    results.direct.push(await pairOfRuns(round, sim.chatUrl, direct, sim));
    const relay = await startRelay(sim);
    try {
      await warmUp(relay.chatUrl, direct, mode, CONNECTIONS);
      results.relay.push(await pairOfRuns(round, relay.chatUrl, direct, sim, relay.pid));
    } finally {
      await stop(relay.child);
    }
    const gateway = await startGateway(sim);
    try {
      await warmUp(gateway.chatUrl, gateway.authorization, mode, CONNECTIONS);
      results.gateway.push(await pairOfRuns(round, gateway.chatUrl, gateway.authorization, sim, gateway.pid));
    } finally {
      await stop(gateway.child);
    }
  }
  console.log(`${latency} ms upstream, ${mode}, ${CONNECTIONS} connections, ${rounds} round(s); added = the server's figure less the direct run's of the same round and kind`);
  console.log('| server | round | in step: p50 / p99 ms | added p99 | spread: p50 / p99 ms | added p99 | CPU µs a request, in step / spread |');
  console.log('|---|--:|--:|--:|--:|--:|--:|');
  for (const server of ['direct', 'relay', 'gateway'] as const) {
    results[server].forEach((pair, round) => {
      const base = results.direct[round]!;
      const added = (kind: 'inStep' | 'spread') => (server === 'direct' ? '' : signed(pair[kind].p99 - base[kind].p99));
      const cpu = server === 'direct' ? '' : `${pair.inStep.cpuUs.toFixed(0)} / ${pair.spread.cpuUs.toFixed(0)}`;
      console.log(
        `| ${server} | ${round + 1} | ${pair.inStep.p50.toFixed(2)} / ${pair.inStep.p99.toFixed(2)} | ${added('inStep')} | ${pair.spread.p50.toFixed(2)} / ${pair.spread.p99.toFixed(2)} | ${added('spread')} | ${cpu} |`,
      );
    });
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
