// The bench's CPU target reads each pair's gateway run against the relay run beside it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkTargets } from '../../bench/report.ts';
import type { CaseResult, PairFigures, ServerRun } from '../../bench/results.ts';

function run(cpuUsPerRequest: number): ServerRun {
  return {
    requests: 1000, durationS: 10, rps: 100, p50Ms: 52, p90Ms: 54, p99Ms: 60, meanMs: 52, maxMs: 70,
    errors: { connect: 0, read: 0, write: 0, status: 0, timeout: 0 }, non2xx: 0, wrkCpuUs: 0,
    cpuUsPerRequest, cpuUtilisation: 0.5, peakRssMb: 200, simCpuUsPerRequest: 10, otherLoadCores: 0, stealCores: 0,
  };
}

const pair = (cpuUsPerRequest: number): PairFigures => ({ addedP50Ms: 1, addedP99Ms: 5, cpuUsPerRequest });

function case50(gateway: number[], relay: number[]): CaseResult {
  return {
    upstreamLatencyMs: 50, mode: 'json', connections: 64,
    direct: { ...run(0), simCpuUsPerRequest: 10, otherLoadCores: 0, stealCores: 0 },
    // the median-p99 pair's runs, as cases.ts reports them
    gateway: run(gateway[0]!), relay: { ...run(relay[0]!), addedP50Ms: 1, addedP99Ms: 5 },
    addedP50Ms: 1, addedP99Ms: 5,
    pairs: gateway.map(pair), relayPairs: relay.map(pair),
    otherLoadBeforeCores: 0, attempts: 1, contended: false,
  };
}

const cpuCheck = (c: CaseResult) => checkTargets([c], []).find((check) => check.target.startsWith('CPU'))!;

test('the CPU ratio is the median of the pairs’ own ratios', () => {
  // the relay ran fast in the first pair only: its run against the gateway's of another pair would read 2×
  const check = cpuCheck(case50([300, 310, 320], [150, 220, 230]));
  assert.match(check.measured, /median of 3 pairs 1\.41×/);
  assert.match(check.measured, /300 \/ 150 µs = 2\.00×/);
  assert.equal(check.met, true);
  assert.equal(cpuCheck(case50([300, 340, 350], [150, 220, 230])).met, false, '2.00×, 1.55×, 1.52×: median 1.55×');
});

test('a case measured once reads its one ratio', () => {
  const check = cpuCheck(case50([300], [250]));
  assert.equal(check.measured, '300 / 250 µs = 1.20×');
  assert.equal(check.met, true);
});
