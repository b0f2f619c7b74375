// A fresh gateway for each case, as in production (logging, SQLite, auth and billing on), alone on
// its core and configured through the admin API; and its garbage-collection pauses, read off its
// own metrics around a measured run.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminCall, BENCH_ADMIN_TOKEN } from './admin-client.ts';
import { freePort } from './machine.ts';
import { alive, cleanEnv, stop, track } from './processes.ts';
import type { GcTotals, Mode } from './results.ts';
import type { Simulator } from './servers.ts';
import { BODIES, GATEWAY_CORE, gatewayExtraEnv, gatewayNodeArgs, MODEL, perf, profile, RESULTS, SIM_KEY } from './settings.ts';
import { gatewayMain, tmp } from './workspace.ts';

export interface GatewayProcess {
  child: ChildProcess;
  pid: number;
  origin: string;
  chatUrl: string;
  /** "Bearer sk-…" of a customer key with ample credit */
  authorization: string;
  logPath: string;
  stderrPath: string;
  /** ms from the spawn to the first 200 of /readyz (polled every 10 ms) */
  readyMs: number;
}

/** numbers each gateway's database and log files in the temporary directory */
let gatewayCount = 0;

/** How the gateway process is started: by default on its core, from the code measured (workspace.ts). */
export interface Launch {
  /** the command before node's own arguments (default: taskset on the gateway's core) */
  prefix?: string[];
  /** the entry point (default: workspace.ts's gatewayMain) */
  main?: string;
  /** how long it may take to answer /readyz (default 30 s) */
  readyTimeoutMs?: number;
}

/** `check`: both request shapes must answer 200 first (a slow simulator's streams would take minutes) */
export async function startGateway(sim: Simulator, extraEnv: Record<string, string> = {}, check = true, launch: Launch = {}): Promise<GatewayProcess> {
  const [command, ...args] = [...(launch.prefix ?? ['taskset', '-c', GATEWAY_CORE]), process.execPath];
  const readyTimeoutMs = launch.readyTimeoutMs ?? 30_000;
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
    ...gatewayNodeArgs,
  ];
  const spawnedAt = performance.now();
  const child = track(
    spawn(command!, [...args, ...nodeArgs, launch.main ?? gatewayMain], {
      cwd: tmp, // no stray .env or data/ from the working tree
      env: cleanEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(tmp, `gateway-${n}.db`)}`,
        MODELGATE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        MODELGATE_DEMO: 'off',
        LOG_LEVEL: 'info',
        ...gatewayExtraEnv,
        ...extraEnv,
      }),
      stdio: ['ignore', out, err],
    }),
  );
  closeSync(out);
  closeSync(err);
  const origin = `http://127.0.0.1:${port}`;
  const gateway = { child, pid: child.pid!, origin, chatUrl: `${origin}/v1/chat/completions`, authorization: '', logPath, stderrPath, readyMs: Number.NaN };
  try {
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (!alive(child)) throw new Error(`the gateway exited (code ${child.exitCode}) while starting:\n${tail(stderrPath)}`);
      const ready = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(5000) }).then((r) => r.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the gateway was not ready after ${readyTimeoutMs / 1000} s:\n${tail(stderrPath)}`);
      await sleep(10);
    }
    gateway.readyMs = performance.now() - spawnedAt;
    const admin = <T>(path: string, body: unknown): Promise<T> => adminCall<T>(origin, path, body);
    await admin('/providers', { name: 'sim', type: 'openai', base_url: sim.baseUrl, api_key: SIM_KEY, models: [MODEL] });
    const account = await admin<{ id: string }>('/accounts', { name: 'bench' });
    await admin(`/accounts/${account.id}/credit`, { amount_usd: 1_000_000, note: 'benchmark' });
    const key = await admin<{ key: string }>(`/accounts/${account.id}/keys`, {});
    gateway.authorization = `Bearer ${key.key}`;
    // both shapes answer 200 before anything is measured
    for (const mode of check ? (['json', 'stream'] as const) : []) await checkAnswer(gateway.chatUrl, gateway.authorization, mode);
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

export async function gcTotals(origin: string): Promise<GcTotals | undefined> {
  const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` }, signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
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

export function gcDelta(before: GcTotals | undefined, after: GcTotals | undefined): GcTotals | undefined {
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
