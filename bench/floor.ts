// The gateway against two yardsticks in the same runs: the bare relay (bench/bare-relay.ts, bytes
// only) and the floor relay (bench/floor-relay.ts, the least a gateway that bills every call must
// do). Where the floor itself is past a CPU or tail target, no gateway with those features meets
// it on this machine; the gateway's distance to the floor is what its own code could still win.
//
// At 64 connections, for each upstream latency and mode, rounds of relay → floor → gateway
// (each warmed up, then one measured wrk run; bench/wrk.ts), then the median of each figure.
//
//   node bench/floor.ts     FLOOR_ROUNDS (default 3); BENCH_LATENCIES, BENCH_MODES and the bench's
//                           other settings (BENCH_QUICK, BENCH_DURATION, BENCH_WARMUP_REQUESTS…);
//                           FLOOR_VARIANT: a variant of floor-relay.ts in bench/ (same arguments),
//                           measured as a fourth server, for experiments
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { FLOOR_CLIENT_KEY, startFloorRelay, startRelay, startSimulator } from './servers.ts';
import { latencies, modes, numberEnv, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp, tmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

const rounds = numberEnv('FLOOR_ROUNDS', 3);
const variant = process.env.FLOOR_VARIANT || undefined;
const CONNECTIONS = 64;

interface Figures {
  cpuUs: number;
  p50Ms: number;
  p99Ms: number;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const medianOf = (runs: Figures[]): Figures => ({ cpuUs: median(runs.map((r) => r.cpuUs)), p50Ms: median(runs.map((r) => r.p50Ms)), p99Ms: median(runs.map((r) => r.p99Ms)) });

const lines: string[] = [
  '| upstream | mode | relay CPU µs | floor CPU µs | gateway CPU µs | floor ÷ relay | gateway ÷ relay | gateway ÷ floor | p99 relay / floor / gateway ms |',
  '|---|---|--:|--:|--:|--:|--:|--:|--:|',
];
createTmp();
try {
  for (const latency of latencies) {
    for (const mode of modes as Mode[]) {
      const sim = await startSimulator(latency);
      const relay = await startRelay(sim);
      const floor = await startFloorRelay(sim, tmp);
      const gateway = await startGateway(sim);
      const extra = variant ? await startFloorRelay(sim, tmp, variant) : undefined;
      const targets = [
        { name: 'relay', url: relay.chatUrl, auth: `Bearer ${SIM_KEY}`, pid: relay.pid, runs: [] as Figures[] },
        { name: 'floor', url: floor.chatUrl, auth: `Bearer ${FLOOR_CLIENT_KEY}`, pid: floor.pid, runs: [] as Figures[] },
        { name: 'gateway', url: gateway.chatUrl, auth: gateway.authorization, pid: gateway.pid, runs: [] as Figures[] },
        ...(extra ? [{ name: variant!, url: extra.chatUrl, auth: `Bearer ${FLOOR_CLIENT_KEY}`, pid: extra.pid, runs: [] as Figures[] }] : []),
      ];
      try {
        for (let round = 0; round < rounds; round++) {
          for (const target of targets) {
            await warmUp(target.url, target.auth, mode, CONNECTIONS);
            const run = await measuredRun(target.url, target.auth, mode, CONNECTIONS, sim, target.pid);
            const bad = run.result.non2xx + Object.values(run.result.errors).reduce((a, b) => a + b, 0);
            if (bad > 0) throw new Error(`${target.name}: ${bad} failed requests of ${run.result.requests}`);
            const figures = { cpuUs: run.gatewayUs / run.result.requests, p50Ms: run.result.p50Ms, p99Ms: run.result.p99Ms };
            target.runs.push(figures);
            process.stderr.write(
              `floor: ${latency} ms ${mode} round ${round + 1} ${target.name.padEnd(9)} ${figures.cpuUs.toFixed(0)} µs/request, p50 ${figures.p50Ms.toFixed(2)} p99 ${figures.p99Ms.toFixed(2)} ms, other load ${(run.otherLoadCores * 100).toFixed(0)} %\n`,
            );
          }
        }
      } finally {
        if (extra) await stop(extra.child);
        await stop(gateway.child);
        await stop(floor.child);
        await stop(relay.child);
        await stop(sim.child);
      }
      const [r, f, g, x] = targets.map((t) => medianOf(t.runs)) as [Figures, Figures, Figures, Figures | undefined];
      if (x) process.stdout.write(`${variant}, ${latency} ms ${mode}: ${x.cpuUs.toFixed(0)} µs/request (${(x.cpuUs / r.cpuUs).toFixed(2)}× the relay, ${(x.cpuUs / f.cpuUs).toFixed(2)}× the floor), p99 ${x.p99Ms.toFixed(1)} ms\n`);
      lines.push(
        `| ${latency} ms | ${mode} | ${r.cpuUs.toFixed(0)} | ${f.cpuUs.toFixed(0)} | ${g.cpuUs.toFixed(0)} | ${(f.cpuUs / r.cpuUs).toFixed(2)}× | ${(g.cpuUs / r.cpuUs).toFixed(2)}× | ${(g.cpuUs / f.cpuUs).toFixed(2)}× | ${r.p99Ms.toFixed(1)} / ${f.p99Ms.toFixed(1)} / ${g.p99Ms.toFixed(1)} |`,
      );
    }
  }
} finally {
  removeTmp();
}
process.stdout.write(`\nmedians of ${rounds} rounds, ${CONNECTIONS} connections (CPU per request of the server's process, every thread)\n${lines.join('\n')}\n`);
