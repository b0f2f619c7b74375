// `node bench/realtime.ts`: the realtime WebSocket relay against a direct connection to the
// OpenAI-family simulator, on loopback.
//
// Layout (2 cores): the gateway alone on core 0 (`taskset -c 0 node src/start.mjs`, logging, SQLite,
// auth and billing on, as in production); the simulator (this file with --simulator) and the
// load driver (this process) on core 1. Without taskset everything shares the cores.
//
// Per-frame latency: N concurrent sessions (1, then 50) each send `conversation.item.create` and wait for the
// server's `conversation.item.added`, R times in a closed loop — one client frame and one server
// frame relayed per round trip; the added latency is gateway minus direct, at p50 and p99. Then
// each session runs T text responses (response.create → ~25 deltas → response.done, billed) for
// the time of a whole turn. Direct and gateway runs alternate BENCH_RT_REPEATS times; the median
// of the repeats is reported. Memory: the gateway's VmRSS before and after opening M idle
// sessions (each with one session.update and one item), divided by M.
//
// Environment:
//   BENCH_RT_SESSIONS      concurrency levels for latency, comma-separated (default "1,50")
//   BENCH_RT_ROUNDS        round trips per session (default 200)
//   BENCH_RT_TURNS         text responses per session (default 5)
//   BENCH_RT_REPEATS       alternating direct/gateway repetitions (default 3)
//   BENCH_RT_MEM_SESSIONS  idle sessions for the memory measurement, on a fresh gateway (default 500)
//   BENCH_RT_JSON          write the results as JSON to this path as well
//   BENCH_RT_QUIET_WAIT    seconds to wait for other processes to go quiet before each run (default 120)
//   BENCH_RT_NODE_ARGS     extra node flags for the gateway (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
//   BENCH_RT_GATEWAY_MAIN  the gateway's entry point (default src/start.mjs; `npm run bench` passes its BENCH_REF snapshot)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { adminCall, BENCH_ADMIN_TOKEN } from './admin-client.ts';
import { freePort } from './machine.ts';
import { gatewayEntry } from './workspace.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SIM_KEY = 'sk-bench-realtime-upstream';
const MODEL = 'gpt-realtime';
const GATEWAY_MAIN = process.env.BENCH_RT_GATEWAY_MAIN ?? gatewayEntry(ROOT);

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

async function main(): Promise<void> {
  const levels = (process.env.BENCH_RT_SESSIONS ?? '1,50').split(',').map((v) => Number(v.trim()));
  if (!levels.every((n) => Number.isInteger(n) && n > 0)) throw new Error('BENCH_RT_SESSIONS must list positive integers');
  const rounds = intEnv('BENCH_RT_ROUNDS', 200);
  const turns = intEnv('BENCH_RT_TURNS', 5);
  const repeats = intEnv('BENCH_RT_REPEATS', 3);
  const memSessions = intEnv('BENCH_RT_MEM_SESSIONS', 500);
  const pin = spawnSync('taskset', ['-V']).status === 0 && cpus().length >= 2;
  const tmp = mkdtempSync(join(tmpdir(), 'modelgate-bench-rt-'));
  const children: ChildProcess[] = [];
  const started = (child: ChildProcess) => (children.push(child), child);
  const cleanUp = () => {
    for (const child of children) child.kill('SIGTERM');
  };
  process.once('SIGINT', () => (cleanUp(), process.exit(130)));
  process.once('SIGTERM', () => (cleanUp(), process.exit(143)));
  try {
    if (pin) spawnSync('taskset', ['-pc', '1', String(process.pid)]);
    const sim = await startSimulator(started, pin);
    const gateway = await startGateway(started, pin, tmp, sim.baseUrl);
    const direct: Target = { name: 'direct', url: `ws://127.0.0.1:${sim.port}/v1/realtime?model=${MODEL}`, key: SIM_KEY };
    const via: Target = { name: 'gateway', url: `ws://127.0.0.1:${gateway.port}/v1/realtime?model=${MODEL}`, key: gateway.key };

    process.stdout.write(`realtime benchmark: {${levels.join(', ')}} sessions × ${rounds} round trips and ${turns} responses each; ${repeats} repeats; cores pinned: ${pin}\n`);
    await run(direct, 10, 20, 1); // warm-up
    await run(via, 10, 20, 1);
    const cases: Array<{ sessions: number; direct: RunResult; gateway: RunResult }> = [];
    for (const sessions of levels) {
      const results: Record<string, RunResult[]> = { direct: [], gateway: [] };
      for (let i = 0; i < repeats; i++) {
        for (const target of [direct, via]) {
          await waitQuiet();
          const result = await run(target, sessions, rounds, turns);
          results[target.name]!.push(result);
          process.stdout.write(
            `  ${String(sessions).padStart(3)} × ${target.name.padEnd(8)} round trip p50 ${ms(result.roundTrip.p50)} p99 ${ms(result.roundTrip.p99)} · turn p50 ${ms(result.turn.p50)} p99 ${ms(result.turn.p99)} · ${Math.round(result.framesPerSecond)} frames/s` +
              (target.name === 'gateway' ? ` · gateway CPU ${result.gatewayCpuPerFrameUs.toFixed(1)} µs/frame` : '') +
              ` · others ${result.otherCores.toFixed(2)} cores\n`,
          );
        }
      }
      cases.push({ sessions, direct: summarize(results.direct!), gateway: summarize(results.gateway!) });
    }
    // memory on a fresh gateway process: no heap slack left over from the latency runs
    const fresh = await startGateway(started, pin, tmp, sim.baseUrl, 'memory');
    const memory = await measureMemory({ name: 'gateway', url: `ws://127.0.0.1:${fresh.port}/v1/realtime?model=${MODEL}`, key: fresh.key }, fresh.pid, memSessions);

    process.stdout.write('\n| sessions | round trip p50 direct → gateway | added per frame p50 | round trip p99 direct → gateway | added per frame p99 | response turn p50 direct → gateway | gateway CPU per frame | other load |\n|---|---|---|---|---|---|---|---|\n');
    for (const c of cases) {
      const d = c.direct;
      const g = c.gateway;
      process.stdout.write(
        `| ${c.sessions} | ${ms(d.roundTrip.p50)} → ${ms(g.roundTrip.p50)} | ${ms((g.roundTrip.p50 - d.roundTrip.p50) / 2)} | ${ms(d.roundTrip.p99)} → ${ms(g.roundTrip.p99)} | ${ms((g.roundTrip.p99 - d.roundTrip.p99) / 2)} | ${ms(d.turn.p50)} → ${ms(g.turn.p50)} | ${g.gatewayCpuPerFrameUs.toFixed(1)} µs | ${d.otherCores.toFixed(2)} / ${g.otherCores.toFixed(2)} cores |\n`,
      );
    }
    process.stdout.write(
      `\ngateway memory: RSS ${mb(memory.rssBefore)} → ${mb(memory.rssAfter)} with ${memory.sessions} idle sessions: ${(memory.perSessionBytes / 1024).toFixed(1)} KiB per session\n`,
    );
    process.stdout.write(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`);
    if (process.env.BENCH_RT_JSON) writeFileSync(process.env.BENCH_RT_JSON, `${JSON.stringify({ rounds, turns, repeats, pinned: pin, cases, memory }, null, 2)}\n`);
  } finally {
    cleanUp();
    await Promise.all(children.map((c) => (c.exitCode === null ? once(c, 'exit') : undefined)));
    rmSync(tmp, { recursive: true, force: true });
  }
}

interface Target {
  name: string;
  url: string;
  key: string;
}

interface Percentiles {
  p50: number;
  p99: number;
}

interface RunResult {
  roundTrip: Percentiles;
  turn: Percentiles;
  framesPerSecond: number;
  /** CPU time of the gateway per frame it relayed (both directions), µs; 0 for direct runs */
  gatewayCpuPerFrameUs: number;
  /** cores' worth of CPU used by processes outside the benchmark during the run */
  otherCores: number;
}

const ms = (value: number) => `${value.toFixed(3)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function summarize(runs: RunResult[]): RunResult {
  return {
    roundTrip: { p50: median(runs.map((r) => r.roundTrip.p50)), p99: median(runs.map((r) => r.roundTrip.p99)) },
    turn: { p50: median(runs.map((r) => r.turn.p50)), p99: median(runs.map((r) => r.turn.p99)) },
    framesPerSecond: median(runs.map((r) => r.framesPerSecond)),
    gatewayCpuPerFrameUs: median(runs.map((r) => r.gatewayCpuPerFrameUs)),
    otherCores: median(runs.map((r) => r.otherCores)),
  };
}

/** One client session: a socket and a queue of parsed server events. */
class Client {
  readonly ws: WebSocket;
  private waiting: { type: string; resolve: () => void } | undefined;
  frames = 0;

  constructor(target: Target) {
    this.ws = new WebSocket(target.url, { headers: { authorization: `Bearer ${target.key}` }, perMessageDeflate: false });
    this.ws.on('message', (data) => {
      this.frames++;
      const waiting = this.waiting;
      if (!waiting) return;
      // the type leads every event; no need to parse audio or text payloads
      if (data.toString('latin1', 0, 64).startsWith(`{"type":"${waiting.type}"`)) {
        this.waiting = undefined;
        waiting.resolve();
      }
    });
  }

  next(type: string): Promise<void> {
    return new Promise((resolve) => (this.waiting = { type, resolve }));
  }

  async open(): Promise<void> {
    const created = this.next('session.created');
    await once(this.ws, 'open');
    await created;
  }

  async close(): Promise<void> {
    const closed = once(this.ws, 'close');
    this.ws.close();
    await closed;
  }
}

/** pids of the benchmark's own processes (driver, simulator, gateways), for CPU accounting */
const ours = new Set<number>([process.pid]);
let gatewayPid = 0;

/** Waits (up to BENCH_RT_QUIET_WAIT seconds) for other processes to use less than 0.3 cores over a second. */
async function waitQuiet(): Promise<void> {
  const deadline = Date.now() + intEnv('BENCH_RT_QUIET_WAIT', 120) * 1000;
  while (Date.now() < deadline) {
    const before = cpuSnapshot();
    await sleep(1000);
    const after = cpuSnapshot();
    const own = [...ours].reduce((sum, pid) => sum + ((after.procs.get(pid) ?? 0) - (before.procs.get(pid) ?? 0)), 0);
    if ((after.busy - before.busy - own) / CLK_TCK < 0.3) return;
  }
}

async function run(target: Target, sessions: number, rounds: number, turns: number): Promise<RunResult> {
  const clients = Array.from({ length: sessions }, () => new Client(target));
  await Promise.all(clients.map((c) => c.open()));
  const roundTrips: number[] = [];
  const turnTimes: number[] = [];
  const before = cpuSnapshot();
  const startedAt = performance.now();
  await Promise.all(
    clients.map(async (client, index) => {
      client.ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } } }));
      await client.next('session.updated');
      for (let i = 0; i < rounds; i++) {
        const added = client.next('conversation.item.added');
        const sent = performance.now();
        client.ws.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `session ${index} message ${i}: hello there` }] } }));
        await added;
        roundTrips.push(performance.now() - sent);
      }
      for (let i = 0; i < turns; i++) {
        const done = client.next('response.done');
        const sent = performance.now();
        client.ws.send(JSON.stringify({ type: 'response.create', response: { conversation: 'none' } }));
        await done;
        turnTimes.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = (performance.now() - startedAt) / 1000;
  const after = cpuSnapshot();
  const received = clients.reduce((sum, c) => sum + c.frames, 0);
  // frames the clients sent: a session.update, the items, the response.create events
  const sent = sessions * (1 + rounds + turns);
  await Promise.all(clients.map((c) => c.close()));
  const ownTicks = [...ours].reduce((sum, pid) => sum + ((after.procs.get(pid) ?? 0) - (before.procs.get(pid) ?? 0)), 0);
  const otherCores = Math.max(0, (after.busy - before.busy - ownTicks) / CLK_TCK / elapsed);
  const gatewayTicks = target.name === 'gateway' ? (after.procs.get(gatewayPid) ?? 0) - (before.procs.get(gatewayPid) ?? 0) : 0;
  return {
    roundTrip: percentiles(roundTrips),
    turn: percentiles(turnTimes),
    framesPerSecond: received / elapsed,
    gatewayCpuPerFrameUs: ((gatewayTicks / CLK_TCK) * 1e6) / (received + sent),
    otherCores,
  };
}

const CLK_TCK = 100;

/** busy jiffies of the whole machine and of each of our processes */
function cpuSnapshot(): { busy: number; procs: Map<number, number> } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const busy = fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]! + (fields[7] ?? 0);
  const procs = new Map<number, number>();
  for (const pid of ours) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(pid, Number(rest[11]) + Number(rest[12]));
    } catch {
      // the process is gone
    }
  }
  return { busy, procs };
}

async function measureMemory(target: Target, pid: number, count: number): Promise<{ sessions: number; rssBefore: number; rssAfter: number; perSessionBytes: number }> {
  // one session first: every module and code path a session needs is loaded and compiled
  await run(target, 1, 5, 1);
  await sleep(1000);
  const rssBefore = rssOf(pid);
  const clients: Client[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, () => new Client(target));
    await Promise.all(batch.map((c) => c.open()));
    await Promise.all(
      batch.map(async (c) => {
        c.ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', instructions: 'You are a helpful assistant.' } }));
        await c.next('session.updated');
        const added = c.next('conversation.item.added');
        c.ws.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] } }));
        await added;
      }),
    );
    clients.push(...batch);
  }
  await sleep(1000);
  const rssAfter = rssOf(pid);
  await Promise.all(clients.map((c) => c.close()));
  return { sessions: count, rssBefore, rssAfter, perSessionBytes: (rssAfter - rssBefore) / count };
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (!kb) throw new Error('no VmRSS');
  return Number(kb) * 1024;
}

function command(pin: boolean, core: string, args: string[]): [string, string[]] {
  return pin ? ['taskset', ['-c', core, process.execPath, ...args]] : [process.execPath, args];
}

async function startSimulator(started: (c: ChildProcess) => ChildProcess, pin: boolean): Promise<{ port: number; baseUrl: string }> {
  const [cmd, args] = command(pin, '1', [fileURLToPath(import.meta.url), '--simulator']);
  const child = started(spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] }));
  ours.add(child.pid!);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return JSON.parse(line.toString().split('\n')[0]!) as { port: number; baseUrl: string };
}

async function startGateway(started: (c: ChildProcess) => ChildProcess, pin: boolean, tmp: string, simBaseUrl: string, name = 'gateway'): Promise<{ port: number; pid: number; key: string }> {
  const port = await freePort();
  const extra = (process.env.BENCH_RT_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const [cmd, args] = command(pin, '0', [...extra, GATEWAY_MAIN]);
  const child = started(
    spawn(cmd, args, {
      cwd: tmp,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(tmp, `${name}.db`)}`,
        MODELGATE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        MODELGATE_DEMO: 'off',
        LOG_LEVEL: 'info',
        MODELGATE_REALTIME_MAX_SESSIONS_PER_KEY: '0',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${origin}/readyz`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('the gateway did not become ready');
    await sleep(50);
  }
  const admin = <T>(path: string, body: unknown): Promise<T> => adminCall<T>(origin, path, body);
  await admin('/providers', { name: 'sim', type: 'openai', base_url: simBaseUrl, api_key: SIM_KEY, models: [MODEL] });
  const account = await admin<{ id: string }>('/accounts', { name: 'bench' });
  await admin(`/accounts/${account.id}/credit`, { amount_usd: 1_000_000 });
  const key = await admin<{ key: string }>(`/accounts/${account.id}/keys`, {});
  // the gateway's own pid (taskset execs node in place)
  ours.add(child.pid!);
  gatewayPid = child.pid!;
  return { port, pid: child.pid!, key: key.key };
}

// entry point (last: the classes above must be initialised first)
if (process.argv.includes('--simulator')) {
  const { startOpenAISimulator } = await import('../simulators/openai/server.ts');
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY, recordRequests: false });
  process.stdout.write(`${JSON.stringify({ port: sim.port, baseUrl: sim.baseUrl })}\n`);
  process.once('SIGTERM', () => void sim.close().then(() => process.exit(0)));
} else {
  await main();
}
