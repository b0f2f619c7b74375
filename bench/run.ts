// `npm run bench`: the gateway against a direct call to the OpenAI-family simulator, on loopback.
//
// Layout (2 cores): the gateway alone on core 0 (`taskset -c 0 node src/start.mjs`, with logging,
// SQLite, auth and billing on, as in production); the simulator (bench/simulator-process.ts),
// the load generator (wrk, one thread) and the time-to-first-byte client on core 1.
//
// For each upstream latency (0 and 50 ms) x {non-streaming, streaming (20 chunks + usage)} x
// {1, 16, 64} connections, three measured wrk runs of the same shape: straight at the simulator
// ("direct"), through a bare Node relay (bench/bare-relay.ts, the reference point) and through a
// freshly started gateway, each after a warm-up. The gateway's CPU time is utime+stime of all its
// threads from /proc/<pid>/stat around the measured run, divided by the requests wrk completed;
// its peak RSS is VmHWM from /proc/<pid>/status. Then sequential streamed requests measure the
// added time to first byte. Results: a table on stdout and bench/results/latest.json.
//
// The machine may be shared: CPU used by other processes during each run is measured
// (/proc/stat minus the benchmark's own processes) and a disturbed case is measured again.
//
// The settings, every BENCH_* variable among them, are documented at the head of bench/settings.ts.
// The parts: settings.ts, workspace.ts (temporary files, BENCH_REF's snapshot), processes.ts
// (every child tracked and stopped), servers.ts and gateway.ts (the processes measured), wrk.ts
// (load, warm-up, a measured run), cases.ts (one HTTP case), ttfb.ts (time to first byte),
// companions.ts (translated path, realtime); report.ts prints, results.ts holds the figures,
// machine.ts reads /proc.
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, release } from 'node:os';
import { join } from 'node:path';
import { runCase } from './cases.ts';
import { COMPANIONS, runCompanion, type CompanionOutcome } from './companions.ts';
import { CLK_TCK } from './machine.ts';
import { runMemory as measureMemory, type MemoryResults } from './memory.ts';
import { requireTool, stop, stopAll } from './processes.ts';
import { checkTargets, report } from './report.ts';
import { errorCount, type CaseResult, type TtfbResult } from './results.ts';
import { startSimulator, type Simulator } from './servers.ts';
import {
  benchRef,
  BODIES,
  connectionsList,
  durationS,
  fail,
  GATEWAY_CORE,
  gatewayExtraEnv,
  keepTmp,
  latencies,
  LOAD_CORE,
  maxAttempts,
  modes,
  otherLoadLimit,
  perf,
  profile,
  quick,
  quietWaitS,
  RESULTS,
  runCases,
  runCompanions,
  runMemory,
  runRelay,
  runTtfb,
  STREAM_CHUNKS,
  ttfbIterations,
  ttfbWarmup,
  warmupRequests,
  warmupS,
} from './settings.ts';
import { runTtfbCase } from './ttfb.ts';
import { codeRoot, createTmp, gatewayMain, git, removeTmp, snapshot, tmp } from './workspace.ts';

async function main(): Promise<number> {
  requireTool('wrk', 'Install it with `sudo apt-get install -y wrk` (Debian/Ubuntu) or from https://github.com/wg/wrk, then run `npm run bench` again.');
  requireTool('taskset', 'It ships with util-linux (`sudo apt-get install -y util-linux`).');
  if (cpus().length < 2) fail('the benchmark pins the gateway and the load generator to two different cores; this machine has one.');

  createTmp();
  let revision = { ref: 'working tree', commit: git(['rev-parse', 'HEAD']), srcModified: git(['status', '--porcelain', '--', 'src']) !== '' };
  if (benchRef) {
    revision = { ref: benchRef, commit: snapshot(benchRef), srcModified: false };
    process.stderr.write(`bench: measuring ${benchRef} = ${revision.commit.slice(0, 12)} (exported to ${codeRoot})\n`);
  }
  mkdirSync(RESULTS, { recursive: true });
  if (profile) mkdirSync(join(RESULTS, 'profiles'), { recursive: true });
  const startedAt = new Date();
  process.stderr.write(
    `bench: ${quick ? 'QUICK smoke run, ' : ''}${durationS} s per run after ${warmupS} s warm-up; gateway on core ${GATEWAY_CORE}, simulator + wrk on core ${LOAD_CORE}\n`,
  );

  const cases: CaseResult[] = [];
  const ttfb: TtfbResult[] = [];
  const sims: Simulator[] = [];
  const companions: CompanionOutcome[] = [];
  let memory: MemoryResults | undefined;
  try {
    for (const latencyMs of latencies) {
      const sim = await startSimulator(latencyMs);
      sims.push(sim);
      for (const mode of runCases ? modes : []) {
        for (const connections of connectionsList) cases.push(await runCase(sim, latencyMs, mode, connections));
      }
      if (runTtfb) ttfb.push(await runTtfbCase(sim, latencyMs));
      if (runMemory && latencyMs === Math.max(...latencies)) memory = await measureMemory(sim);
      await stop(sim.child);
    }
    for (const companion of runCompanions ? COMPANIONS : []) companions.push(await runCompanion(companion));
  } finally {
    await Promise.all(sims.map((s) => stop(s.child)));
    await stopAll();
    removeTmp();
    if (keepTmp) process.stderr.write(`bench: temporary files kept in ${tmp}\n`);
  }

  const checks = checkTargets(cases, ttfb, memory);
  const cpu = cpus()[0];
  const results = {
    date: startedAt.toISOString(),
    /** the code measured: the working tree (HEAD, and whether src/ had uncommitted changes) or BENCH_REF */
    revision,
    machine: { cpus: cpus().length, model: cpu?.model ?? 'unknown', arch: arch(), kernel: release(), node: process.version, clockTicksPerSecond: CLK_TCK },
    settings: {
      quick,
      durationS,
      warmupS,
      warmupRequests,
      connections: connectionsList,
      upstreamLatenciesMs: latencies,
      streamChunks: STREAM_CHUNKS,
      ttfbIterations: runTtfb ? ttfbIterations : 0,
      ttfbWarmup,
      layout: { gatewayCore: GATEWAY_CORE, relayCore: GATEWAY_CORE, simulatorCore: LOAD_CORE, loadGeneratorCore: LOAD_CORE, ttfbClientCore: LOAD_CORE },
      bodies: BODIES,
      relay: runRelay,
      otherLoadLimitCores: otherLoadLimit,
      maxAttempts,
      quietWaitS,
      gatewayExtraEnv,
      gatewayMain,
      profile,
      perf,
    },
    elapsedS: Math.round((Date.now() - startedAt.getTime()) / 1000),
    cases,
    ttfb,
    memory,
    companions: Object.fromEntries(companions.map((c) => [c.name, c.results])),
    targets: checks,
  };
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);

  process.stdout.write(
    `\nmodelgate benchmark — ${startedAt.toISOString()} — ${revision.ref} at ${revision.commit.slice(0, 12)}${revision.srcModified ? ' + uncommitted changes in src/' : ''} — ${cpus().length} cores (${cpu?.model ?? 'unknown'}), Node ${process.version}\n`,
  );
  process.stdout.write(`${quick ? 'QUICK run: ' : ''}${durationS} s per run after ${warmupS} s warm-up, wrk -t 1; latencies are wrk's (whole response)\n\n`);
  process.stdout.write(`${report(cases, ttfb, checks, memory)}\n`);
  for (const c of companions) process.stdout.write(`\n${c.name}:\n${c.table}`);
  const disturbed = cases.filter((c) => c.contended).length + ttfb.filter((t) => t.contended).length;
  if (disturbed > 0) {
    process.stdout.write(`\nWARNING: ${disturbed} measurement(s) were disturbed by other processes on every attempt (marked (!)); rerun them on a quiet machine.\n`);
  }
  process.stdout.write(`\nWritten to ${join(RESULTS, 'latest.json')}\n`);

  const errors = cases.reduce((sum, c) => sum + errorCount(c.direct) + errorCount(c.gateway) + (c.relay ? errorCount(c.relay) : 0), 0);
  if (errors > 0) {
    process.stderr.write(`bench: ${errors} request(s) failed (non-2xx, socket errors or timeouts); see the errors column\n`);
    return 2;
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    process.stderr.write(`\nbench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await stopAll(2000);
    removeTmp();
    process.exitCode = 1;
  },
);
