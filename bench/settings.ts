// The settings of `npm run bench` (bench/run.ts): fixed names, the core layout, and what the
// environment chooses, read once when the benchmark starts.
//
// Environment:
//   BENCH_DURATION        seconds per measured run (default 10)
//   BENCH_WARMUP          seconds of warm-up at 64 connections before each measured run (default 5)
//   BENCH_WARMUP_REQUESTS the warm-up goes on (in BENCH_WARMUP steps, at most 30 s) until this many
//                         requests were served (default 20000; slow upstreams need it)
//   BENCH_QUICK=1         smoke run: 2 s runs, 1 s warm-ups, 40 TTFB iterations
//   BENCH_CONNECTIONS     default "1,16,64"
//   BENCH_LATENCIES       simulated upstream latencies in ms, default "0,50"
//   BENCH_MODES           default "json,stream"
//   BENCH_TTFB=0          skip the time-to-first-byte measurement; BENCH_TTFB_ITERATIONS (default 200)
//                         after the wrk warm-up, BENCH_TTFB_WARMUP sequential streams (default 50)
//   BENCH_CASES=0         skip the wrk cases (time to first byte only)
//   BENCH_RELAY=0         skip the bare-relay reference runs
//   BENCH_COMPANIONS=0    skip the translated-path and realtime cases (bench/translated.ts and
//                         bench/realtime.ts, run after the HTTP cases on the same code; their own
//                         settings apply, a quick run uses short ones)
//   BENCH_MEMORY=0        skip the memory and start-up cases (bench/memory.ts: start-up, idle RSS, peak
//                         RSS at 1,000 connections, BENCH_STREAMS concurrent streams, default 10000,
//                         1000 in a quick run, one chunk every BENCH_STREAM_CHUNK_MS, default 5000; the
//                         run raises its open-file limit to BENCH_FD_LIMIT, default 2 per stream + 512,
//                         where prlimit may, and caps the streams to the limit it has)
//   BENCH_QUIET_WAIT      seconds to wait for other processes to go quiet before each case (default 180)
//   BENCH_OTHER_LOAD_LIMIT  cores other processes may use during a run before it counts as disturbed (0.15)
//   BENCH_ATTEMPTS        measurements of a disturbed case (default 3; the least disturbed is kept)
//   BENCH_PAIRS           direct/relay/gateway measured-run pairs of the cases the targets read (64
//                         conn; default 3): the pair with the median added p99 is reported, the CPU
//                         ratio is the median of the pairs' own, every pair is listed under the table
//   BENCH_PROFILE=1       gateway runs with --cpu-prof (bench/results/profiles/; `node bench/profile-top.ts`)
//   BENCH_PERF=1          `perf record` on CPU time during each measured gateway run
//                         (bench/results/profiles/*.data; `node bench/perf-stages.ts <file>`)
//   BENCH_KEEP_TMP=1      keep the temporary databases and gateway logs
//   BENCH_GATEWAY_ENV     extra gateway environment for experiments, "K=V,K2=V2"
//   BENCH_GATEWAY_MAIN    another gateway entry point, for A/B experiments on a patched copy
//   BENCH_NODE_ARGS       node options for the gateway, space-separated (default "--max-semi-space-size=8",
//                         as npm start; e.g. "--max-semi-space-size=8 --trace-deopt")
//   BENCH_REF             measure this git revision (its src/ exported to a temporary directory)
//                         rather than the working tree, e.g. BENCH_REF=HEAD while others edit src/
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Mode } from './results.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH = join(ROOT, 'bench');
export const RESULTS = join(BENCH, 'results');
export const SIM_KEY = 'sk-bench-upstream';
export const MODEL = 'gpt-4o-mini';
export const STREAM_CHUNKS = 20;
export const GATEWAY_CORE = '0';
export const LOAD_CORE = '1';

export const quick = process.env.BENCH_QUICK === '1';
export const durationS = numberEnv('BENCH_DURATION', quick ? 2 : 10);
export const warmupS = numberEnv('BENCH_WARMUP', quick ? 1 : 5);
export const warmupRequests = numberEnv('BENCH_WARMUP_REQUESTS', quick ? 1000 : 20_000, true);
export const MAX_WARMUP_S = 30;
export const connectionsList = listEnv('BENCH_CONNECTIONS', [1, 16, 64]);
export const latencies = listEnv('BENCH_LATENCIES', [0, 50]);
export const modes = (process.env.BENCH_MODES ?? 'json,stream').split(',').map((m) => m.trim()) as Mode[];
export const ttfbIterations = numberEnv('BENCH_TTFB_ITERATIONS', quick ? 40 : 200);
export const ttfbWarmup = numberEnv('BENCH_TTFB_WARMUP', quick ? 10 : 50);
export const runTtfb = process.env.BENCH_TTFB !== '0';
export const profile = process.env.BENCH_PROFILE === '1';
/** sample the gateway on CPU time with Linux perf during each measured run (robust on a shared machine) */
export const perf = process.env.BENCH_PERF === '1';
export const keepTmp = process.env.BENCH_KEEP_TMP === '1';
export const runRelay = process.env.BENCH_RELAY !== '0';
export const runCases = process.env.BENCH_CASES !== '0';
export const runCompanions = process.env.BENCH_COMPANIONS !== '0';
export const runMemory = process.env.BENCH_MEMORY !== '0';
/** the warm-up's client that leaves mid-request (bench/wrk.ts); 0 leaves it out, and with it the tokenizer thread it starts */
export const leavingClient = process.env.BENCH_LEAVE !== '0';
/** a run during which other processes used this much CPU (in cores) counts as disturbed */
export const otherLoadLimit = numberEnv('BENCH_OTHER_LOAD_LIMIT', 0.15);
export const maxAttempts = Math.max(1, Math.floor(numberEnv('BENCH_ATTEMPTS', 3)));
/**
 * A p99 over one 20-s run is its ~250 slowest requests: identical runs on a VM differed by several
 * ms. The cases the latency targets read are measured as several direct/gateway pairs, in turn on
 * the same processes, and the pair with the median added p99 is reported. Their CPU per request
 * moves with the host too (the relay's read 111–216 µs saturated from one full run to another): the
 * CPU target reads each pair's gateway run against the relay run just before it, and takes the
 * median of those ratios.
 */
export const targetPairs = Math.max(1, Math.floor(numberEnv('BENCH_PAIRS', 3)));
/** another gateway entry point, only for A/B experiments on a patched copy (bench/workspace.ts resolves it) */
export const gatewayMainEnv = process.env.BENCH_GATEWAY_MAIN || undefined;
/** measure a committed revision (exported to a temporary directory) instead of the working tree */
export const benchRef = process.env.BENCH_REF || undefined;
/** the machine may be shared: wait (up to this long) for other processes to go quiet before each case */
export const quietWaitS = numberEnv('BENCH_QUIET_WAIT', 180, true);
/** extra environment for the gateway, for experiments: "LOG_LEVEL=warn,MODELGATE_SYNC_INTERVAL_MS=1000" */
export const gatewayExtraEnv = Object.fromEntries(
  (process.env.BENCH_GATEWAY_ENV ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim()]),
);
/** node options for the gateway: those `npm start` uses (docs/benchmarks.md: young generation held to 16 MB), or an experiment's such as --trace-deopt */
export const gatewayNodeArgs = (process.env.BENCH_NODE_ARGS ?? '--max-semi-space-size=8').split(' ').filter((arg) => arg !== '');

for (const mode of modes) if (mode !== 'json' && mode !== 'stream') fail(`BENCH_MODES: unknown mode "${mode}" (json, stream)`);

export function numberEnv(name: string, fallback: number, zeroAllowed = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed)) fail(`${name} must be a positive number (got "${raw}")`);
  return value;
}

function listEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 0)) fail(`${name} must be a comma-separated list of integers (got "${raw}")`);
  return values;
}

/** A setting or tool the benchmark cannot run without: says so and exits. */
export function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}

const CHAT_MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
  { role: 'user', content: 'Hello! Please write a short greeting for the people running this benchmark.' },
];
/** the two request shapes every case sends, to the simulator, the relay and the gateway alike */
export const BODIES: Record<Mode, string> = {
  json: JSON.stringify({ model: MODEL, messages: CHAT_MESSAGES }),
  stream: JSON.stringify({ model: MODEL, messages: CHAT_MESSAGES, stream: true, stream_options: { include_usage: true } }),
};
