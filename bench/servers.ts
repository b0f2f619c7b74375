// The processes the gateway is measured against: the OpenAI-family simulator (the upstream) on
// the load core, the bare relay (the reference point) on the gateway's core, and `perf record`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, firstLine, track } from './processes.ts';
import { GATEWAY_CORE, LOAD_CORE, RESULTS, ROOT, SIM_KEY, STREAM_CHUNKS } from './settings.ts';
import { codeRoot } from './workspace.ts';

export interface Simulator {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** origin + /v1/chat/completions */
  chatUrl: string;
  /** served over HTTPS (`tls`): the certificate a server calling it must trust (NODE_EXTRA_CA_CERTS) */
  certPath?: string;
}

/**
 * `stream` slows the simulator's streams down (bench/memory.ts keeps thousands open); `tls` serves
 * HTTPS, and HTTP/2 to a client that offers it (undici does), as vendors do.
 */
export async function startSimulator(latencyMs: number, stream: { chunks: number; chunkDelayMs: number } = { chunks: STREAM_CHUNKS, chunkDelayMs: 0 }, tls = false): Promise<Simulator> {
  const child = track(
    spawn(
      'taskset',
      [
        ...['-c', LOAD_CORE, process.execPath, join(codeRoot, 'bench', 'simulator-process.ts'), '--latency-ms', String(latencyMs)],
        ...['--stream-chunks', String(stream.chunks), '--chunk-delay-ms', String(stream.chunkDelayMs), '--api-key', SIM_KEY],
        ...(tls ? ['--tls'] : []),
      ],
      { cwd: ROOT, env: cleanEnv({}), stdio: ['ignore', 'pipe', 'inherit'] },
    ),
  );
  const info = JSON.parse(await firstLine(child, 'the simulator')) as { port: number; baseUrl: string; certPath?: string };
  return { child, pid: child.pid!, baseUrl: info.baseUrl, chatUrl: `${info.baseUrl}/chat/completions`, ...(info.certPath && { certPath: info.certPath }) };
}

/** What a server calling `sim` needs in its environment: trust in its certificate when it serves HTTPS. */
export function upstreamTrust(sim: Simulator): Record<string, string> {
  return sim.certPath ? { NODE_EXTRA_CA_CERTS: sim.certPath } : {};
}

export interface RelayProcess {
  child: ChildProcess;
  pid: number;
  chatUrl: string;
  /** ms from the spawn to its listening line */
  readyMs: number;
}

/** bench/bare-relay.ts on the gateway's core: what Node's HTTP server and client cost alone. */
export function startRelay(sim: Simulator, upstreamConnections = 256, nodeArgs: string[] = []): Promise<RelayProcess> {
  return startOnGatewayCore('the bare relay', 'bare-relay.ts', [new URL(sim.baseUrl).origin, '0', String(upstreamConnections)], nodeArgs, upstreamTrust(sim));
}

/** The key clients of bench/floor-relay.ts send. */
export const FLOOR_CLIENT_KEY = 'sk-bench-floor-client';

/**
 * bench/floor-relay.ts on the gateway's core: the least a billing gateway must do, its files in
 * `dir`; `script`: a variant of it in bench/ taking the same arguments, for experiments.
 */
export function startFloorRelay(sim: Simulator, dir: string, script = 'floor-relay.ts', nodeArgs: string[] = []): Promise<RelayProcess> {
  const origin = new URL(sim.baseUrl).origin;
  const files = join(dir, `${script}-${sim.pid}`);
  return startOnGatewayCore(script, script, [origin, `${files}.db`, `${files}.log`, FLOOR_CLIENT_KEY, SIM_KEY], nodeArgs);
}

/** `nodeArgs`: options for node itself (a diagnostic preload); `env`: more environment */
async function startOnGatewayCore(name: string, script: string, args: string[], nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<RelayProcess> {
  const spawnedAt = performance.now();
  const child = track(
    spawn('taskset', ['-c', GATEWAY_CORE, process.execPath, ...nodeArgs, join(codeRoot, 'bench', script), ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const { port } = JSON.parse(await firstLine(child, name)) as { port: number };
  return { child, pid: child.pid!, chatUrl: `http://127.0.0.1:${port}/v1/chat/completions`, readyMs: performance.now() - spawnedAt };
}

/**
 * `perf record` on the gateway, sampling on task-clock: only time the process actually ran
 * counts, so other processes on the machine do not skew the attribution (V8's --cpu-prof samples
 * wall-clock time). `extraArgs`: more options for `perf record` (`-k mono` for a JIT dump). Read with `perf report -i bench/results/profiles/<name>.data --no-children --sort dso,sym`.
 */
export function startPerf(pid: number, name: string, extraArgs: string[] = []): ChildProcess {
  mkdirSync(join(RESULTS, 'profiles'), { recursive: true });
  const output = join(RESULTS, 'profiles', `${name}.data`);
  return track(
    spawn('perf', ['record', ...extraArgs, '-e', 'task-clock', '-F', '999', '-g', '-p', String(pid), '-o', output], {
      stdio: ['ignore', 'ignore', 'ignore'],
    }),
  );
}
