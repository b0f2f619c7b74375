// `node bench/translated.ts`: what translation costs. Streaming chat completions (20 chunks plus
// usage) through the gateway to an OpenAI-family upstream (pass-through: events relayed as
// received) and to a messages-family upstream (translated: messages events → IR → chat chunks),
// each beside a direct call to the same simulator; plus the native messages endpoint, passed
// through and bridged to the OpenAI family.
//
// Layout (2 cores), as in bench/run.ts: the gateway alone on core 0 (`taskset -c 0 node
// src/start.mjs`, logging, SQLite, auth and billing on); simulators and wrk (one thread) on core 1.
// Added latency = gateway p50/p99 − direct p50/p99 at the same connection count; CPU per request
// = the gateway's utime+stime (/proc/<pid>/stat) over the measured run / requests completed.
// Other processes' CPU during each run is reported (the machine may be shared). First, the relays
// alone in process (bench/relay-micro.ts): the translation's own CPU cost, free of that noise.
//
// Environment: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3),
// BENCH_CONNECTIONS (default "1,16"), BENCH_QUIET_WAIT (s to wait for other processes to go
// quiet before each case, default 120), BENCH_OUT (write the results as JSON to this file),
// BENCH_TRANSLATED_GATEWAY_MAIN (the gateway's entry point; `npm run bench` passes its snapshot).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { adminCall, BENCH_ADMIN_TOKEN } from './admin-client.ts';
import { freePort } from './machine.ts';
import { runRelayMicro, type MicroResult } from './relay-micro.ts';
import { gatewayEntry } from './workspace.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LUA = join(ROOT, 'bench', 'translated-post.lua');
const GATEWAY_MAIN = process.env.BENCH_TRANSLATED_GATEWAY_MAIN ?? gatewayEntry(ROOT);
const durationS = Number(process.env.BENCH_DURATION ?? 10);
const warmupS = Number(process.env.BENCH_WARMUP ?? 3);
const connections = (process.env.BENCH_CONNECTIONS ?? '1,16').split(',').map(Number);
const quietWaitS = Number(process.env.BENCH_QUIET_WAIT ?? 120);
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);

const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
  { role: 'user', content: 'Hello! Please write a short greeting for the people running this benchmark.' },
];

interface Case {
  name: string;
  /** 'gateway' cases are compared with their `direct` twin */
  via: 'gateway' | 'direct';
  baseline?: string;
  url: () => string;
  body: string;
  headers: () => string;
}

interface WrkResult {
  requests: number;
  duration_us: number;
  errors: Record<string, number>;
  latency_us: { p50: number; p90: number; p99: number; mean: number; max: number };
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** Starts a child and resolves with the first stdout line that parses as JSON. */
async function startSimulator(family: string, key: string): Promise<{ baseUrl: string; child: ChildProcess }> {
  const child = spawn('taskset', ['-c', '1', process.execPath, join(ROOT, 'bench', 'family-simulator-process.ts'), '--family', family, '--api-key', key], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { baseUrl: (JSON.parse(line.toString().split('\n')[0]!) as { baseUrl: string }).baseUrl, child };
}

async function startGateway(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('taskset', ['-c', '0', process.execPath, GATEWAY_MAIN], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`, MODELGATE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN, MODELGATE_DEMO: 'off', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error('the gateway did not start');
}

function admin(port: number, path: string, body: unknown): Promise<Record<string, unknown>> {
  return adminCall(`http://127.0.0.1:${port}`, path, body);
}

/** utime+stime of a process (`children`: plus its waited-for children, e.g. the finished wrk runs). */
function cpuMs(pid: number | 'self', children = false): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return (children ? own + Number(fields[13]) + Number(fields[14]) : own) * TICK_MS;
}

/** CPU busy time of the whole machine in ms (/proc/stat), to see what other processes did. */
function machineBusyMs(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  return (ticks.reduce((a, b) => a + b, 0) - ticks[3]! - ticks[4]!) * TICK_MS;
}

/** Waits (up to BENCH_QUIET_WAIT) until the machine is nearly idle between our runs. */
async function waitForQuiet(): Promise<void> {
  const deadline = Date.now() + quietWaitS * 1000;
  while (Date.now() < deadline) {
    const before = machineBusyMs();
    await sleep(1000);
    if (machineBusyMs() - before < 150) return;
  }
}

function wrk(url: string, body: string, headers: string, conns: number, seconds: number): WrkResult {
  const run = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${conns}`, `-d${seconds}s`, '--latency', '-s', LUA, url], { env: { ...process.env, BENCH_BODY: body, BENCH_HEADERS: headers }, encoding: 'utf8' });
  const line = run.stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`wrk failed: ${run.stderr}${run.stdout}`);
  return JSON.parse(line.slice('BENCH_JSON '.length)) as WrkResult;
}

const ms = (us: number) => (us / 1000).toFixed(2);

async function main(): Promise<void> {
  const micro: MicroResult[] = runRelayMicro();
  process.stdout.write('relays alone, in process (one event per network chunk):\n');
  for (const r of micro) process.stdout.write(`  ${r.relay.padEnd(44)} ${String(r.events).padStart(3)} events  ${r.usPerStream.toFixed(1).padStart(7)} µs CPU per stream\n`);
  process.stdout.write('through the gateway (streaming, 20 chunks plus usage):\n');
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-bench-'));
  const openai = await startSimulator('openai', 'sk-up-openai');
  const anthropic = await startSimulator('anthropic', 'sk-up-anthropic');
  const port = await freePort();
  const gateway = await startGateway(port, dir);
  await admin(port, '/providers', { name: 'openai-sim', type: 'openai', base_url: openai.baseUrl, api_key: 'sk-up-openai', models: ['gpt-4o-mini'] });
  await admin(port, '/providers', { name: 'anthropic-sim', type: 'anthropic', base_url: anthropic.baseUrl, api_key: 'sk-up-anthropic', models: ['claude-sonnet-5'] });
  const account = await admin(port, '/accounts', { name: 'bench' });
  await admin(port, `/accounts/${String(account.id)}/credit`, { amount_usd: 100_000 });
  const key = String((await admin(port, `/accounts/${String(account.id)}/keys`, { name: 'bench' })).key);

  const gw = `http://127.0.0.1:${port}`;
  const chat = (model: string) => JSON.stringify({ model, messages: MESSAGES, stream: true, stream_options: { include_usage: true } });
  const messages = (model: string, maxTokens = 4096) => JSON.stringify({ model, max_tokens: maxTokens, system: MESSAGES[0]!.content, messages: [MESSAGES[1]], stream: true });
  const bearer = (k: string) => `Authorization: Bearer ${k}`;
  const native = (k: string) => `x-api-key: ${k}|anthropic-version: 2023-06-01`;
  const cases: Case[] = [
    { name: 'direct OpenAI simulator', via: 'direct', url: () => `${openai.baseUrl}/chat/completions`, body: chat('gpt-4o-mini'), headers: () => bearer('sk-up-openai') },
    { name: 'chat → OpenAI family (pass-through)', via: 'gateway', baseline: 'direct OpenAI simulator', url: () => `${gw}/v1/chat/completions`, body: chat('gpt-4o-mini'), headers: () => bearer(key) },
    { name: 'direct messages simulator', via: 'direct', url: () => `${anthropic.baseUrl}/messages`, body: messages('claude-sonnet-5'), headers: () => native('sk-up-anthropic') },
    { name: 'chat → messages family (translated)', via: 'gateway', baseline: 'direct messages simulator', url: () => `${gw}/v1/chat/completions`, body: chat('claude-sonnet-5'), headers: () => bearer(key) },
    { name: 'messages → messages family (pass-through)', via: 'gateway', baseline: 'direct messages simulator', url: () => `${gw}/v1/messages`, body: messages('claude-sonnet-5'), headers: () => native(key) },
    { name: 'messages → OpenAI family (bridged)', via: 'gateway', baseline: 'direct OpenAI simulator', url: () => `${gw}/v1/messages`, body: messages('gpt-4o-mini'), headers: () => native(key) },
  ];

  const results: Array<{ case: string; connections: number; rps: number; p50_ms: number; p99_ms: number; added_p50_ms?: number; added_p99_ms?: number; cpu_ms_per_request?: number; other_cpu_cores: number; errors: number }> = [];
  for (const conns of connections) {
    const direct = new Map<string, WrkResult>();
    for (const c of cases) {
      wrk(c.url(), c.body, c.headers(), Math.max(conns, 16), warmupS);
      await waitForQuiet();
      const ours = () => cpuMs('self', true) + cpuMs(openai.child.pid!) + cpuMs(anthropic.child.pid!);
      const cpuBefore = cpuMs(gateway.pid!);
      const oursBefore = ours();
      const busyBefore = machineBusyMs();
      const r = wrk(c.url(), c.body, c.headers(), conns, durationS);
      const busy = machineBusyMs() - busyBefore;
      const gatewayCpu = cpuMs(gateway.pid!) - cpuBefore;
      const benchCpu = ours() - oursBefore;
      const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
      if (c.via === 'direct') direct.set(c.name, r);
      const base = c.baseline ? direct.get(c.baseline) : undefined;
      // what the machine did beyond the gateway, the simulators, wrk and this script: someone else
      const other = Math.max(0, busy - gatewayCpu - benchCpu) / (r.duration_us / 1000);
      results.push({
        case: c.name,
        connections: conns,
        rps: Math.round(r.requests / (r.duration_us / 1e6)),
        p50_ms: r.latency_us.p50 / 1000,
        p99_ms: r.latency_us.p99 / 1000,
        ...(base && { added_p50_ms: (r.latency_us.p50 - base.latency_us.p50) / 1000, added_p99_ms: (r.latency_us.p99 - base.latency_us.p99) / 1000 }),
        ...(c.via === 'gateway' && { cpu_ms_per_request: gatewayCpu / r.requests }),
        other_cpu_cores: Math.round(other * 100) / 100,
        errors,
      });
      const last = results.at(-1)!;
      process.stdout.write(
        `${String(conns).padStart(3)} conn  ${c.name.padEnd(44)} ${String(last.rps).padStart(6)} req/s  p50 ${ms(r.latency_us.p50).padStart(7)} ms  p99 ${ms(r.latency_us.p99).padStart(7)} ms` +
          (last.added_p50_ms !== undefined ? `  added p50 ${last.added_p50_ms.toFixed(2).padStart(6)} / p99 ${last.added_p99_ms!.toFixed(2).padStart(6)} ms` : '') +
          (last.cpu_ms_per_request !== undefined ? `  CPU ${last.cpu_ms_per_request.toFixed(3)} ms/req` : '') +
          `  (others ${last.other_cpu_cores} cores${errors ? `, ${errors} errors` : ''})\n`,
      );
    }
  }
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${JSON.stringify({ date: new Date().toISOString(), durationS, micro, results }, null, 2)}\n`);

  for (const child of [gateway, openai.child, anthropic.child]) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
