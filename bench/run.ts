// `npm run bench`: the gateway against a direct call to the OpenAI-family simulator, on loopback.
//
// Layout (2 cores): the gateway alone on core 0 (`taskset -c 0 node src/main.ts`, with logging,
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
//   BENCH_QUIET_WAIT      seconds to wait for other processes to go quiet before each case (default 180)
//   BENCH_OTHER_LOAD_LIMIT  cores other processes may use during a run before it counts as disturbed (0.15)
//   BENCH_ATTEMPTS        measurements of a disturbed case (default 3; the least disturbed is kept)
//   BENCH_PAIRS           direct/gateway measured-run pairs of the cases the latency targets read
//                         (64 conn, upstream latency > 0; default 3): the pair with the median added
//                         p99 is reported, every pair's added p50 / p99 is listed under the table
//   BENCH_PROFILE=1       gateway runs with --cpu-prof (bench/results/profiles/; `node bench/profile-top.ts`)
//   BENCH_PERF=1          `perf record` on CPU time during each measured gateway run
//                         (bench/results/profiles/*.data; `node bench/perf-stages.ts <file>`)
//   BENCH_KEEP_TMP=1      keep the temporary databases and gateway logs
//   BENCH_GATEWAY_ENV     extra gateway environment for experiments, "K=V,K2=V2"
//   BENCH_GATEWAY_MAIN    another gateway entry point, for A/B experiments on a patched copy
//   BENCH_NODE_ARGS       extra node options for the gateway, space-separated (e.g. "--trace-deopt")
//   BENCH_REF             measure this git revision (its src/ exported to a temporary directory)
//                         rather than the working tree, e.g. BENCH_REF=HEAD while others edit src/
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch, cpus, release, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CLK_TCK, cpuMicros, freePort, otherCores, sampleLoad, statusMb, waitForQuiet as waitForQuietMachine } from './machine.ts';
import { checkTargets, modeName, report, signed } from './report.ts';
import { errorCount, type CaseResult, type GcTotals, type Mode, type Percentiles, type ServerRun, type TtfbResult, type WrkResult } from './results.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BENCH = join(ROOT, 'bench');
const RESULTS = join(BENCH, 'results');
const ADMIN_TOKEN = 'bench-admin-token';
const SIM_KEY = 'sk-bench-upstream';
const MODEL = 'gpt-4o-mini';
const STREAM_CHUNKS = 20;
const GATEWAY_CORE = '0';
const LOAD_CORE = '1';

// ---------------------------------------------------------------- settings

const quick = process.env.BENCH_QUICK === '1';
const durationS = numberEnv('BENCH_DURATION', quick ? 2 : 10);
const warmupS = numberEnv('BENCH_WARMUP', quick ? 1 : 5);
const warmupRequests = numberEnv('BENCH_WARMUP_REQUESTS', quick ? 1000 : 20_000, true);
const MAX_WARMUP_S = 30;
const connectionsList = listEnv('BENCH_CONNECTIONS', [1, 16, 64]);
const latencies = listEnv('BENCH_LATENCIES', [0, 50]);
const modes = (process.env.BENCH_MODES ?? 'json,stream').split(',').map((m) => m.trim()) as Mode[];
const ttfbIterations = numberEnv('BENCH_TTFB_ITERATIONS', quick ? 40 : 200);
const ttfbWarmup = numberEnv('BENCH_TTFB_WARMUP', quick ? 10 : 50);
const runTtfb = process.env.BENCH_TTFB !== '0';
const profile = process.env.BENCH_PROFILE === '1';
/** sample the gateway on CPU time with Linux perf during each measured run (robust on a shared machine) */
const perf = process.env.BENCH_PERF === '1';
const keepTmp = process.env.BENCH_KEEP_TMP === '1';
const runRelay = process.env.BENCH_RELAY !== '0';
const runCases = process.env.BENCH_CASES !== '0';
const runCompanions = process.env.BENCH_COMPANIONS !== '0';
/** a run during which other processes used this much CPU (in cores) counts as disturbed */
const otherLoadLimit = numberEnv('BENCH_OTHER_LOAD_LIMIT', 0.15);
const maxAttempts = Math.max(1, Math.floor(numberEnv('BENCH_ATTEMPTS', 3)));
/**
 * A p99 over one 20-s run is its ~250 slowest requests: identical runs on a VM differed by several
 * ms. The cases the latency targets read are measured as several direct/gateway pairs, in turn on
 * the same processes, and the pair with the median added p99 is reported.
 */
const targetPairs = Math.max(1, Math.floor(numberEnv('BENCH_PAIRS', 3)));
/** the gateway's entry point; another one only for A/B experiments on a patched copy */
let gatewayMain = resolve(ROOT, process.env.BENCH_GATEWAY_MAIN ?? 'src/main.ts');
/** measure a committed revision (exported to a temporary directory) instead of the working tree */
const benchRef = process.env.BENCH_REF || undefined;
/** where the processes' code comes from: the working tree, or the snapshot of BENCH_REF */
let codeRoot = ROOT;
/** the machine may be shared: wait (up to this long) for other processes to go quiet before each case */
const quietWaitS = numberEnv('BENCH_QUIET_WAIT', 180, true);
/** extra environment for the gateway, for experiments: "LOG_LEVEL=warn,MODELGATE_SYNC_INTERVAL_MS=1000" */
const gatewayExtraEnv = Object.fromEntries(
  (process.env.BENCH_GATEWAY_ENV ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim()]),
);

for (const mode of modes) if (mode !== 'json' && mode !== 'stream') fail(`BENCH_MODES: unknown mode "${mode}" (json, stream)`);

function numberEnv(name: string, fallback: number, zeroAllowed = false): number {
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

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}

const CHAT_MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
  { role: 'user', content: 'Hello! Please write a short greeting for the people running this benchmark.' },
];
const BODIES: Record<Mode, string> = {
  json: JSON.stringify({ model: MODEL, messages: CHAT_MESSAGES }),
  stream: JSON.stringify({ model: MODEL, messages: CHAT_MESSAGES, stream: true, stream_options: { include_usage: true } }),
};

// ---------------------------------------------------------------- child processes

const children = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
async function stop(child: ChildProcess, graceMs = 10_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!alive(child)) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = sleep(graceMs).then(() => 'timeout' as const);
  if ((await Promise.race([exited.then(() => 'exited' as const), timer])) === 'timeout' && alive(child)) {
    child.kill('SIGKILL');
    await exited;
  }
}

// last resort: whatever is still running when this process goes away is killed by its PID
process.on('exit', () => {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping every process it started\n`);
    void Promise.all([...children].map((c) => stop(c, 2000))).finally(() => {
      if (tmp && !keepTmp) rmSync(tmp, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

function requireTool(tool: string, installHint: string): void {
  const probe = spawnSync(tool, ['--version'], { stdio: 'ignore' });
  if (probe.error) fail(`\`${tool}\` is not installed. ${installHint}`);
}

// ---------------------------------------------------------------- /proc

/** Waits until other processes leave the machine (nearly) idle, up to BENCH_QUIET_WAIT seconds. */
function waitForQuiet(ourPids: number[]): Promise<number> {
  return waitForQuietMachine(ourPids, quietWaitS, otherLoadLimit / 2);
}

// ---------------------------------------------------------------- simulator

interface Simulator {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** origin + /v1/chat/completions */
  chatUrl: string;
}

async function startSimulator(latencyMs: number): Promise<Simulator> {
  const child = track(
    spawn(
      'taskset',
      ['-c', LOAD_CORE, process.execPath, join(codeRoot, 'bench', 'simulator-process.ts'), '--latency-ms', String(latencyMs), '--stream-chunks', String(STREAM_CHUNKS), '--api-key', SIM_KEY],
      { cwd: ROOT, env: cleanEnv({}), stdio: ['ignore', 'pipe', 'inherit'] },
    ),
  );
  const line = await new Promise<string>((resolveLine, reject) => {
    let buffered = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      buffered += text;
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolveLine(buffered.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`the simulator exited (code ${code}) before listening`)));
  });
  const info = JSON.parse(line) as { port: number; baseUrl: string };
  return { child, pid: child.pid!, baseUrl: info.baseUrl, chatUrl: `${info.baseUrl}/chat/completions` };
}

// ---------------------------------------------------------------- bare relay (reference)

interface RelayProcess {
  child: ChildProcess;
  pid: number;
  chatUrl: string;
}

/** bench/bare-relay.ts on the gateway's core: what Node's HTTP server and client cost alone. */
async function startRelay(sim: Simulator): Promise<RelayProcess> {
  const child = track(
    spawn('taskset', ['-c', GATEWAY_CORE, process.execPath, join(codeRoot, 'bench', 'bare-relay.ts'), new URL(sim.baseUrl).origin], {
      cwd: ROOT,
      env: cleanEnv({}),
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const line = await new Promise<string>((resolveLine, reject) => {
    let buffered = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      buffered += text;
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolveLine(buffered.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`the bare relay exited (code ${code}) before listening`)));
  });
  const { port } = JSON.parse(line) as { port: number };
  return { child, pid: child.pid!, chatUrl: `http://127.0.0.1:${port}/v1/chat/completions` };
}

// ---------------------------------------------------------------- perf

/**
 * `perf record` on the gateway, sampling on task-clock: only time the process actually ran
 * counts, so other processes on the machine do not skew the attribution (V8's --cpu-prof samples
 * wall-clock time). Read with `perf report -i bench/results/profiles/<name>.data --no-children --sort dso,sym`.
 */
function startPerf(pid: number, name: string): ChildProcess {
  mkdirSync(join(RESULTS, 'profiles'), { recursive: true });
  const output = join(RESULTS, 'profiles', `${name}.data`);
  return track(
    spawn('perf', ['record', '-e', 'task-clock', '-F', '999', '-g', '-p', String(pid), '-o', output], {
      stdio: ['ignore', 'ignore', 'ignore'],
    }),
  );
}

// ---------------------------------------------------------------- gateway

interface GatewayProcess {
  child: ChildProcess;
  pid: number;
  origin: string;
  chatUrl: string;
  /** "Bearer sk-…" of a customer key with ample credit */
  authorization: string;
  logPath: string;
  stderrPath: string;
}

let tmp = '';
let gatewayCount = 0;

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmp, ...extra };
}

async function startGateway(sim: Simulator): Promise<GatewayProcess> {
  const n = ++gatewayCount;
  const port = await freePort();
  const logPath = join(tmp, `gateway-${n}.log`);
  const stderrPath = join(tmp, `gateway-${n}.stderr`);
  const out = openSync(logPath, 'w');
  const err = openSync(stderrPath, 'w');
  const nodeArgs = [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles')}`] : []),
    // JIT-compiled functions get names in perf's reports through /tmp/perf-<pid>.map
    ...(perf ? ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'] : []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
  ];
  const child = track(
    spawn('taskset', ['-c', GATEWAY_CORE, process.execPath, ...nodeArgs, gatewayMain], {
      cwd: tmp, // no stray .env or data/ from the working tree
      env: cleanEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(tmp, `gateway-${n}.db`)}`,
        MODELGATE_ADMIN_TOKEN: ADMIN_TOKEN,
        MODELGATE_DEMO: 'off',
        LOG_LEVEL: 'info',
        ...gatewayExtraEnv,
      }),
      stdio: ['ignore', out, err],
    }),
  );
  closeSync(out);
  closeSync(err);
  const origin = `http://127.0.0.1:${port}`;
  const gateway = { child, pid: child.pid!, origin, chatUrl: `${origin}/v1/chat/completions`, authorization: '', logPath, stderrPath };
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (!alive(child)) throw new Error(`the gateway exited (code ${child.exitCode}) while starting:\n${tail(stderrPath)}`);
      const ready = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(5000) }).then((r) => r.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the gateway was not ready after 30 s:\n${tail(stderrPath)}`);
      await sleep(50);
    }
    const admin = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await fetch(`${origin}/admin${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`POST /admin${path} answered ${response.status}: ${text}`);
      return JSON.parse(text) as T;
    };
    await admin('/providers', { name: 'sim', type: 'openai', base_url: sim.baseUrl, api_key: SIM_KEY, models: [MODEL] });
    const account = await admin<{ id: string }>('/accounts', { name: 'bench' });
    await admin(`/accounts/${account.id}/credit`, { amount_usd: 1_000_000, note: 'benchmark' });
    const key = await admin<{ key: string }>(`/accounts/${account.id}/keys`, {});
    gateway.authorization = `Bearer ${key.key}`;
    // both shapes answer 200 before anything is measured
    for (const mode of ['json', 'stream'] as const) await checkAnswer(gateway.chatUrl, gateway.authorization, mode);
    return gateway;
  } catch (error) {
    await stop(child);
    throw error;
  }
}

async function checkAnswer(url: string, authorization: string, mode: Mode): Promise<void> {
  // a request the gateway never finishes must fail the run, not hang it
  const signal = AbortSignal.timeout(30_000);
  const response = await fetch(url, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: BODIES[mode], signal });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} (${mode}) answered ${response.status}: ${text.slice(0, 500)}`);
  if (mode === 'stream' && !text.trimEnd().endsWith('data: [DONE]')) throw new Error(`${url}: the stream did not end with [DONE]`);
  if (mode === 'stream' && !text.includes('"usage":{')) throw new Error(`${url}: the stream carried no usage chunk`);
}

async function gcTotals(origin: string): Promise<GcTotals | undefined> {
  const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
  if (!response?.ok) return undefined;
  const text = await response.text();
  const value = (suffix: string, kind: string, le?: string): number => {
    const labels = le === undefined ? `kind="${kind}"` : `le="${le}",kind="${kind}"`;
    const line = text.split('\n').find((l) => l.startsWith(`modelgate_nodejs_gc_duration_seconds_${suffix}{${labels}}`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  const minorCount = value('count', 'minor');
  return {
    minorCount,
    minorSeconds: value('sum', 'minor'),
    minorOver10ms: minorCount - value('bucket', 'minor', '0.01'),
    majorCount: value('count', 'major'),
    majorSeconds: value('sum', 'major'),
  };
}

function gcDelta(before: GcTotals | undefined, after: GcTotals | undefined): GcTotals | undefined {
  if (!before || !after) return undefined;
  return {
    minorCount: after.minorCount - before.minorCount,
    minorSeconds: after.minorSeconds - before.minorSeconds,
    minorOver10ms: after.minorOver10ms - before.minorOver10ms,
    majorCount: after.majorCount - before.majorCount,
    majorSeconds: after.majorSeconds - before.majorSeconds,
  };
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

// ---------------------------------------------------------------- wrk

async function wrk(url: string, authorization: string, mode: Mode, connections: number, seconds: number): Promise<WrkResult> {
  const args = ['-c', LOAD_CORE, 'wrk', '-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '10s', '--latency', '-s', join(BENCH, 'post.lua'), url];
  // through a shell that reaps wrk and then prints its own /proc stat: cutime+cstime = wrk's CPU time
  const script = 'taskset "$@"; code=$?; echo "BENCH_SHELL_STAT $(cat /proc/$$/stat)"; exit $code';
  const child = track(
    spawn('sh', ['-c', script, 'sh', ...args], { env: cleanEnv({ BENCH_BODY: BODIES[mode], BENCH_AUTH: authorization }), stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const [code] = (await once(child, 'exit')) as [number | null];
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

// ---------------------------------------------------------------- cases

function serverRun(run: Awaited<ReturnType<typeof measuredRun>>, pid: number): ServerRun {
  const r = run.result;
  return {
    ...r,
    cpuUsPerRequest: run.gatewayUs / Math.max(1, r.requests),
    cpuUtilisation: run.gatewayUs / 1e6 / r.durationS,
    peakRssMb: statusMb(pid, 'VmHWM'),
    simCpuUsPerRequest: run.simUs / Math.max(1, r.requests),
    otherLoadCores: run.otherLoadCores,
  };
}

/**
 * Warm-up before a measured run: BENCH_WARMUP seconds at 64 connections (or more), repeated until
 * BENCH_WARMUP_REQUESTS were served (at most 30 s), so that the JIT has seen tens of thousands of
 * requests whatever the case's concurrency and upstream latency — a production gateway is warm —
 * then a second at the case's own concurrency to settle the connection pools.
 */
async function warmUp(url: string, authorization: string, mode: Mode, connections: number): Promise<void> {
  // by count too: against a 50 ms upstream 5 s are ~6,000 requests, and V8 was still compiling
  // (15 % of the gateway's CPU in the measured run, against 2 % when saturated)
  let served = 0;
  for (let spent = 0; spent === 0 || (served < warmupRequests && spent + warmupS <= MAX_WARMUP_S); spent += warmupS) {
    served += (await wrk(url, authorization, mode, Math.max(64, connections), warmupS)).requests;
  }
  if (connections < 64) await wrk(url, authorization, mode, connections, 1);
}

/** One measured wrk run with the CPU of every process involved. */
async function measuredRun(url: string, authorization: string, mode: Mode, connections: number, sim: Simulator, gatewayPid?: number) {
  const load0 = sampleLoad();
  const sim0 = cpuMicros(sim.pid);
  const gw0 = gatewayPid === undefined ? 0 : cpuMicros(gatewayPid);
  const result = await wrk(url, authorization, mode, connections, durationS);
  const simUs = cpuMicros(sim.pid) - sim0;
  const gatewayUs = gatewayPid === undefined ? 0 : cpuMicros(gatewayPid) - gw0;
  const otherLoadCores = otherCores(load0, sampleLoad(), simUs + gatewayUs + result.wrkCpuUs);
  return { result, simUs, gatewayUs, otherLoadCores };
}

function maxOtherLoad(c: CaseResult): number {
  return Math.max(c.direct.otherLoadCores, c.gateway.otherLoadCores, c.relay?.otherLoadCores ?? 0);
}

/** Measures a case again (after waiting for quiet) while other processes disturbed it, up to BENCH_ATTEMPTS times. */
async function runCase(sim: Simulator, latencyMs: number, mode: Mode, connections: number): Promise<CaseResult> {
  let best: CaseResult | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const result = await runCaseOnce(sim, latencyMs, mode, connections);
    result.attempts = attempt;
    result.contended = maxOtherLoad(result) >= otherLoadLimit;
    if (!best || maxOtherLoad(result) < maxOtherLoad(best)) best = { ...result };
    if (!result.contended) return result;
    if (attempt < maxAttempts) process.stderr.write(`bench: other processes disturbed this case; measuring it again (attempt ${attempt + 1} of ${maxAttempts})\n`);
  }
  best!.attempts = maxAttempts;
  return best!;
}

async function runCaseOnce(sim: Simulator, latencyMs: number, mode: Mode, connections: number): Promise<CaseResult> {
  const label = `${latencyMs} ms upstream, ${modeName(mode)}, ${connections} conn`;
  const otherLoadBeforeCores = await waitForQuiet([sim.pid]);
  process.stderr.write(`bench: ${label}: direct…`);
  const directAuth = `Bearer ${SIM_KEY}`;
  await warmUp(sim.chatUrl, directAuth, mode, connections);
  const direct = await measuredRun(sim.chatUrl, directAuth, mode, connections, sim);

  let relay: CaseResult['relay'];
  if (runRelay) {
    process.stderr.write(' bare relay…');
    const bare = await startRelay(sim);
    try {
      await warmUp(bare.chatUrl, directAuth, mode, connections);
      const run = serverRun(await measuredRun(bare.chatUrl, directAuth, mode, connections, sim, bare.pid), bare.pid);
      relay = { ...run, addedP50Ms: run.p50Ms - direct.result.p50Ms, addedP99Ms: run.p99Ms - direct.result.p99Ms };
    } finally {
      await stop(bare.child);
    }
  }

  process.stderr.write(' gateway…');
  const gateway = await startGateway(sim);
  try {
    await warmUp(gateway.chatUrl, gateway.authorization, mode, connections);
    const pairCount = connections === 64 && latencyMs > 0 ? targetPairs : 1;
    const pairs: MeasuredPair[] = [];
    for (let i = 0; i < pairCount; i++) {
      // the first pair's direct run is the one measured before the relay; later pairs measure it again, just before the gateway
      const directRun = i === 0 ? direct : await measuredRun(sim.chatUrl, directAuth, mode, connections, sim);
      const recorder = perf && i === 0 ? startPerf(gateway.pid, `perf-${latencyMs}ms-${mode}-${connections}c`) : undefined;
      const gcBefore = await gcTotals(gateway.origin);
      const through = serverRun(await measuredRun(gateway.chatUrl, gateway.authorization, mode, connections, sim, gateway.pid), gateway.pid);
      const gc = gcDelta(gcBefore, await gcTotals(gateway.origin));
      if (recorder) await stop(recorder, 60_000, 'SIGINT');
      pairs.push({ direct: directRun, through, gc, addedP50Ms: through.p50Ms - directRun.result.p50Ms, addedP99Ms: through.p99Ms - directRun.result.p99Ms });
      if (i + 1 < pairCount) process.stderr.write(` pair ${i + 1}: ${signed(pairs[i]!.addedP99Ms)} ms p99…`);
    }
    const { direct: reported, through, gc } = medianPair(pairs);
    const otherMax = Math.max(reported.otherLoadCores, through.otherLoadCores, relay?.otherLoadCores ?? 0);
    process.stderr.write(
      ` ${Math.round(through.rps)} req/s, ${Math.round(through.cpuUsPerRequest)} µs CPU/req` +
        (relay ? ` (bare relay ${Math.round(relay.cpuUsPerRequest)} µs)` : '') +
        (otherMax >= 0.1 ? ` — other processes used ${(100 * otherMax).toFixed(0)}% of a core meanwhile` : '') +
        '\n',
    );
    return {
      upstreamLatencyMs: latencyMs,
      mode,
      connections,
      direct: { ...reported.result, simCpuUsPerRequest: reported.simUs / Math.max(1, reported.result.requests), otherLoadCores: reported.otherLoadCores },
      gateway: through,
      ...(gc && { gatewayGc: gc }),
      ...(relay && { relay }),
      addedP50Ms: through.p50Ms - reported.result.p50Ms,
      addedP99Ms: through.p99Ms - reported.result.p99Ms,
      pairs: pairs.map(({ addedP50Ms, addedP99Ms }) => ({ addedP50Ms, addedP99Ms })),
      otherLoadBeforeCores,
      attempts: 1,
      contended: false,
    };
  } finally {
    await stop(gateway.child);
  }
}

interface MeasuredPair {
  direct: Awaited<ReturnType<typeof measuredRun>>;
  through: ServerRun;
  gc: GcTotals | undefined;
  addedP50Ms: number;
  addedP99Ms: number;
}

/** The pair whose added p99 is the median; of an even count, the upper middle one (never the kinder reading). */
function medianPair(pairs: MeasuredPair[]): MeasuredPair {
  const sorted = [...pairs].sort((a, b) => a.addedP99Ms - b.addedP99Ms);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// ---------------------------------------------------------------- time to first byte

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function summarise(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), meanMs: samples.reduce((s, v) => s + v, 0) / samples.length };
}

async function runTtfbCase(sim: Simulator, latencyMs: number): Promise<TtfbResult> {
  let best: TtfbResult | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const result = await runTtfbOnce(sim, latencyMs);
    result.attempts = attempt;
    if (!best || result.otherLoadCores < best.otherLoadCores) best = result;
    if (result.otherLoadCores < otherLoadLimit) return result;
    if (attempt < maxAttempts) process.stderr.write(`bench: other processes disturbed this measurement; measuring it again (attempt ${attempt + 1} of ${maxAttempts})\n`);
  }
  return { ...best!, attempts: maxAttempts, contended: true };
}

async function runTtfbOnce(sim: Simulator, latencyMs: number): Promise<TtfbResult> {
  await waitForQuiet([sim.pid]);
  process.stderr.write(`bench: time to first byte, ${latencyMs} ms upstream, ${ttfbIterations} sequential streams each…`);
  const gateway = await startGateway(sim);
  const bare = runRelay ? await startRelay(sim).catch(async (error: unknown) => {
    await stop(gateway.child);
    throw error;
  }) : undefined;
  try {
    // warm like the wrk cases (a production gateway has served many requests): the sequential
    // warm-up alone (250 streams) left the gateway's request path partly unoptimised by V8
    await warmUp(sim.chatUrl, `Bearer ${SIM_KEY}`, 'stream', 1);
    if (bare) await warmUp(bare.chatUrl, `Bearer ${SIM_KEY}`, 'stream', 1);
    await warmUp(gateway.chatUrl, gateway.authorization, 'stream', 1);
    const job = {
      targets: [
        { name: 'direct', url: sim.chatUrl, authorization: `Bearer ${SIM_KEY}` },
        ...(bare ? [{ name: 'relay', url: bare.chatUrl, authorization: `Bearer ${SIM_KEY}` }] : []),
        { name: 'gateway', url: gateway.chatUrl, authorization: gateway.authorization },
      ],
      body: BODIES.stream,
      iterations: ttfbIterations,
      warmup: ttfbWarmup,
    };
    const load0 = sampleLoad();
    const sim0 = cpuMicros(sim.pid);
    const gw0 = cpuMicros(gateway.pid);
    const relay0 = bare ? cpuMicros(bare.pid) : 0;
    const child = track(
      spawn('taskset', ['-c', LOAD_CORE, process.execPath, join(codeRoot, 'bench', 'ttfb-client.ts')], {
        cwd: ROOT,
        env: cleanEnv({ BENCH_TTFB: JSON.stringify(job) }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`the TTFB client failed (exit ${code}):\n${stderr}`);
    const samples = JSON.parse(stdout) as { direct: number[]; relay?: number[]; gateway: number[]; clientCpuUs: number };
    const relayUs = bare ? cpuMicros(bare.pid) - relay0 : 0;
    const otherLoadCores = otherCores(load0, sampleLoad(), cpuMicros(sim.pid) - sim0 + cpuMicros(gateway.pid) - gw0 + relayUs + samples.clientCpuUs);
    const direct = summarise(samples.direct);
    const through = summarise(samples.gateway);
    const paired = samples.gateway.map((g, i) => g - samples.direct[i]!).sort((a, b) => a - b);
    process.stderr.write(
      ` +${(through.p50Ms - direct.p50Ms).toFixed(3)} ms at p50` +
        (otherLoadCores >= 0.1 ? ` — other processes used ${(100 * otherLoadCores).toFixed(0)}% of a core meanwhile` : '') +
        '\n',
    );
    return {
      upstreamLatencyMs: latencyMs,
      iterations: ttfbIterations,
      direct,
      gateway: through,
      addedP50Ms: through.p50Ms - direct.p50Ms,
      addedP99Ms: through.p99Ms - direct.p99Ms,
      addedPairedMedianMs: percentile(paired, 0.5),
      ...(samples.relay && {
        relay: (() => {
          const r = summarise(samples.relay);
          return { ...r, addedP50Ms: r.p50Ms - direct.p50Ms, addedP99Ms: r.p99Ms - direct.p99Ms };
        })(),
      }),
      otherLoadCores,
      attempts: 1,
      contended: false,
    };
  } finally {
    await stop(gateway.child);
    if (bare) await stop(bare.child);
  }
}

// ---------------------------------------------------------------- companion benchmarks

interface Companion {
  name: string;
  script: string;
  /** environment naming the gateway entry point and the JSON output file */
  mainEnv: string;
  jsonEnv: string;
  /** settings for a quick run */
  quickEnv: Record<string, string>;
  /** where its stdout's table begins */
  tableFrom: string;
}

const COMPANIONS: Companion[] = [
  {
    name: 'translated path (bench/translated.ts; docs/benchmarks-translated.md)',
    script: 'translated.ts',
    mainEnv: 'BENCH_TRANSLATED_GATEWAY_MAIN',
    jsonEnv: 'BENCH_OUT',
    quickEnv: { BENCH_CONNECTIONS: '1', BENCH_QUIET_WAIT: '5' },
    tableFrom: 'relays alone',
  },
  {
    name: 'realtime WebSocket relay (bench/realtime.ts; docs/benchmarks-realtime.md)',
    script: 'realtime.ts',
    mainEnv: 'BENCH_RT_GATEWAY_MAIN',
    jsonEnv: 'BENCH_RT_JSON',
    quickEnv: { BENCH_RT_ROUNDS: '50', BENCH_RT_TURNS: '2', BENCH_RT_REPEATS: '1', BENCH_RT_MEM_SESSIONS: '100', BENCH_RT_QUIET_WAIT: '5' },
    tableFrom: '\n| sessions',
  },
];

/**
 * A companion benchmark in its own process (its own simulators and gateway, same core layout),
 * on the same code as the HTTP cases. Its progress goes to stderr, its table into this report
 * and its figures into latest.json.
 */
async function runCompanion(companion: Companion): Promise<{ name: string; table: string; results: unknown }> {
  process.stderr.write(`bench: ${companion.name}…\n`);
  const json = join(tmp, `${companion.script}.json`);
  // the HTTP cases' connection counts do not apply to the companions (their own defaults do)
  const { BENCH_CONNECTIONS: _connections, ...inherited } = process.env;
  const child = spawn(process.execPath, [join(BENCH, companion.script)], {
    cwd: ROOT,
    env: { ...(quick ? companion.quickEnv : {}), ...inherited, BENCH_DURATION: String(durationS), [companion.mainEnv]: gatewayMain, [companion.jsonEnv]: json },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    out += text;
    process.stderr.write(text);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  children.delete(child);
  if (code !== 0) throw new Error(`${companion.name} failed (exit ${code}); run \`node bench/${companion.script}\` alone to see why`);
  return { name: companion.name, table: out.slice(Math.max(0, out.indexOf(companion.tableFrom))), results: JSON.parse(readFileSync(json, 'utf8')) };
}

// ---------------------------------------------------------------- main

function git(args: string[]): string {
  return spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
}

/**
 * Exports `src/` and `package.json` of a revision into the temporary directory (the benchmark's
 * own files from the working tree beside them, node_modules linked), so that a tree other people
 * are editing cannot change the code halfway through a run. Returns the commit.
 */
function snapshot(ref: string): string {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  if (!commit) fail(`BENCH_REF: unknown revision "${ref}"`);
  const dir = join(tmp, 'code');
  mkdirSync(join(dir, 'bench'), { recursive: true });
  const archive = spawnSync('sh', ['-c', 'git archive "$1" src package.json | tar -x -C "$2"', 'sh', commit, dir], { cwd: ROOT, encoding: 'utf8' });
  if (archive.status !== 0) fail(`could not export ${ref}: ${archive.stderr}`);
  for (const file of ['simulator-process.ts', 'bare-relay.ts', 'ttfb-client.ts']) copyFileSync(join(BENCH, file), join(dir, 'bench', file));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  codeRoot = dir;
  if (!process.env.BENCH_GATEWAY_MAIN) gatewayMain = join(dir, 'src', 'main.ts');
  return commit;
}

async function main(): Promise<number> {
  requireTool('wrk', 'Install it with `sudo apt-get install -y wrk` (Debian/Ubuntu) or from https://github.com/wg/wrk, then run `npm run bench` again.');
  requireTool('taskset', 'It ships with util-linux (`sudo apt-get install -y util-linux`).');
  if (cpus().length < 2) fail('the benchmark pins the gateway and the load generator to two different cores; this machine has one.');

  tmp = mkdtempSync(join(tmpdir(), 'modelgate-bench-'));
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
  const companions: Array<{ name: string; table: string; results: unknown }> = [];
  try {
    for (const latencyMs of latencies) {
      const sim = await startSimulator(latencyMs);
      sims.push(sim);
      for (const mode of runCases ? modes : []) {
        for (const connections of connectionsList) cases.push(await runCase(sim, latencyMs, mode, connections));
      }
      if (runTtfb) ttfb.push(await runTtfbCase(sim, latencyMs));
      await stop(sim.child);
    }
    for (const companion of runCompanions ? COMPANIONS : []) companions.push(await runCompanion(companion));
  } finally {
    await Promise.all(sims.map((s) => stop(s.child)));
    await Promise.all([...children].map((c) => stop(c)));
    if (!keepTmp) rmSync(tmp, { recursive: true, force: true });
    else process.stderr.write(`bench: temporary files kept in ${tmp}\n`);
  }

  const checks = checkTargets(cases, ttfb);
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
    companions: Object.fromEntries(companions.map((c) => [c.name, c.results])),
    targets: checks,
  };
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);

  process.stdout.write(
    `\nmodelgate benchmark — ${startedAt.toISOString()} — ${revision.ref} at ${revision.commit.slice(0, 12)}${revision.srcModified ? ' + uncommitted changes in src/' : ''} — ${cpus().length} cores (${cpu?.model ?? 'unknown'}), Node ${process.version}\n`,
  );
  process.stdout.write(`${quick ? 'QUICK run: ' : ''}${durationS} s per run after ${warmupS} s warm-up, wrk -t 1; latencies are wrk's (whole response)\n\n`);
  process.stdout.write(`${report(cases, ttfb, checks)}\n`);
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
    await Promise.all([...children].map((c) => stop(c, 2000)));
    if (tmp && !keepTmp) rmSync(tmp, { recursive: true, force: true });
    process.exitCode = 1;
  },
);
