// Memory and start-up, the gateway against the bare relay in the same run (issue 21): start-up
// to ready, RSS at idle, peak RSS under 1,000 connections, and RSS with thousands of streams open
// at once. Peak RSS at 64 connections comes from the HTTP cases (bench/cases.ts).
//
// Each figure is read off a fresh process on the gateway's core: start-up from the spawn to the
// first 200 of /readyz (the relay: to its listening line), idle RSS (VmRSS) 2 s after two
// answered requests, peak RSS (VmHWM) after a wrk run of streamed requests at 1,000 connections
// against the 50 ms upstream, and VmRSS once every one of BENCH_STREAMS streams (default 10,000)
// has its first chunk from a simulator that sends a chunk every 5 s (BENCH_STREAM_CHUNK_MS).
// That simulator serves HTTPS as vendors do, and the servers' undici speaks HTTP/2 to it (ALPN),
// ~100 streams a connection: a stream holds one socket in the server, the client's. Over HTTP/1.1
// it held two, and 10,000 streams needed 20,000 open files, this machine's hard limit. The run
// raises its open-file limit (inherited by the servers) to what the streams need, and caps their
// number where it cannot.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway } from './gateway.ts';
import { statusMb } from './machine.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startRelay, startSimulator, upstreamTrust, type Simulator } from './servers.ts';
import { BODIES, numberEnv, quick, SIM_KEY } from './settings.ts';
import { measuredRun, warmUp } from './wrk.ts';

export interface MemoryResults {
  startupMs: { gateway: number; relay: number };
  idleRssMb: { gateway: number; relay: number };
  peakRssMb1000: { gateway: number; relay: number };
  streams: { requested: number; opened: { gateway: number; relay: number }; rssMb: { gateway: number; relay: number } };
}

const WIDE_CONNECTIONS = 1000;
export const streamsWanted = numberEnv('BENCH_STREAMS', quick ? 1000 : 10_000);
/** open files the servers need: a socket per stream, and room for the rest (the upstream connections among them) */
const FD_SPARE = 512;
/**
 * The open streams' chunk cadence. The case measures the memory an open stream holds, not chunk
 * throughput: at one chunk a second, 10,000 streams are 10,000 chunks/s through a one-core
 * server (and the simulator and this client on the other core), and only ~8,600 streams opened
 * within the 90 s, for the relay as for the gateway. What a delivered chunk leaves behind is
 * measured apart (bench/stream-memory-probe.ts).
 */
const STREAM_CHUNK_MS = numberEnv('BENCH_STREAM_CHUNK_MS', 5000);

/** the relay passes the client's authorization on: the simulator's own key */
const RELAY_AUTH = `Bearer ${SIM_KEY}`;

export async function runMemory(sim50: Simulator): Promise<MemoryResults> {
  // start-up and idle, three fresh processes each (median)
  const startup = { gateway: [] as number[], relay: [] as number[] };
  const idle = { gateway: [] as number[], relay: [] as number[] };
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    const gateway = await startGateway(sim50);
    startup.gateway.push(gateway.readyMs);
    await sleep(2000);
    idle.gateway.push(statusMb(gateway.pid, 'VmRSS'));
    await stop(gateway.child);
    const relay = await startRelay(sim50);
    startup.relay.push(relay.readyMs);
    for (const mode of ['json', 'stream'] as Mode[]) await answer(relay.chatUrl, RELAY_AUTH, mode);
    await sleep(2000);
    idle.relay.push(statusMb(relay.pid, 'VmRSS'));
    await stop(relay.child);
  }

  // peak at 1,000 connections, streamed, 50 ms upstream (wrk's warm-up at 64 first, as every case)
  const wideGateway = await startGateway(sim50, { MODELGATE_UPSTREAM_CONNECTIONS: String(WIDE_CONNECTIONS) });
  await warmUp(wideGateway.chatUrl, wideGateway.authorization, 'stream', 64);
  await measuredRun(wideGateway.chatUrl, wideGateway.authorization, 'stream', WIDE_CONNECTIONS, sim50, wideGateway.pid);
  const gatewayPeak = statusMb(wideGateway.pid, 'VmHWM');
  await stop(wideGateway.child);
  const wideRelay = await startRelay(sim50, WIDE_CONNECTIONS);
  await warmUp(wideRelay.chatUrl, RELAY_AUTH, 'stream', 64);
  await measuredRun(wideRelay.chatUrl, RELAY_AUTH, 'stream', WIDE_CONNECTIONS, sim50, wideRelay.pid);
  const relayPeak = statusMb(wideRelay.pid, 'VmHWM');
  await stop(wideRelay.child);

  // thousands of slow streams open at once, upstream over HTTPS and HTTP/2
  const streamCount = Math.min(streamsWanted, raiseFdLimit(numberEnv('BENCH_FD_LIMIT', streamsWanted + FD_SPARE)) - FD_SPARE);
  const slow = await startSimulator(0, { chunks: 120, chunkDelayMs: STREAM_CHUNK_MS }, true);
  const streamEnv = { MODELGATE_UPSTREAM_CONNECTIONS: String(streamCount), ...upstreamTrust(slow) };
  const gateway = await startGateway(slow, streamEnv, false);
  const gw = await holdStreams(gateway.chatUrl, gateway.authorization, gateway.pid, streamCount);
  await stop(gateway.child);
  const relay = await startRelay(slow, streamCount);
  const rl = await holdStreams(relay.chatUrl, RELAY_AUTH, relay.pid, streamCount);
  await stop(relay.child);
  await stop(slow.child);

  return {
    startupMs: { gateway: median(startup.gateway), relay: median(startup.relay) },
    idleRssMb: { gateway: median(idle.gateway), relay: median(idle.relay) },
    peakRssMb1000: { gateway: gatewayPeak, relay: relayPeak },
    streams: { requested: streamCount, opened: { gateway: gw.opened, relay: rl.opened }, rssMb: { gateway: gw.rssMb, relay: rl.rssMb } },
  };
}

/**
 * Raises this process's open-file limit (soft and hard) to `wanted` with prlimit, so that the
 * servers it starts next inherit it — as root, or under a hard limit already that high. Returns
 * the limit the servers will have (never lowered).
 */
function raiseFdLimit(wanted: number): number {
  const hard = (): number => {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const value = line?.trim().split(/\s+/)[4];
    return value === 'unlimited' ? Infinity : Number(value);
  };
  if (hard() < wanted) spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${wanted}:${wanted}`], { stdio: 'ignore' });
  return Math.min(wanted, hard());
}

async function answer(url: string, authorization: string, mode: Mode): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: BODIES[mode], signal: AbortSignal.timeout(30_000) });
  await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
}

/**
 * Opens `streamCount` streamed requests (50 at a time, the next 50 once these have their response
 * headers) and waits until each has its first chunk, within `windowMs` in all. Pacing on the first
 * chunk instead (a second away) opened ~4,000 in 90 s. `close` drops them all.
 */
export async function openStreams(url: string, authorization: string, streamCount: number, windowMs = 90_000): Promise<{ opened: number; close(): void }> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const target = new URL(url);
  let opened = 0;
  const requests: ReturnType<typeof request>[] = [];
  /** `answered`: the response headers (or an error); `streaming`: the first chunk (or an error) */
  const open = () => {
    let answered!: () => void;
    let streaming!: () => void;
    const stream = { answered: new Promise<void>((resolve) => (answered = resolve)), streaming: new Promise<void>((resolve) => (streaming = resolve)) };
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { authorization, 'content-type': 'application/json' } },
      (res) => {
        answered();
        res.once('data', () => {
          opened++;
          streaming();
        });
        res.on('data', () => undefined);
      },
    );
    req.on('error', () => {
      answered();
      streaming();
    });
    req.end(BODIES.stream);
    requests.push(req);
    return stream;
  };
  const deadline = Date.now() + windowMs;
  const started: Promise<void>[] = [];
  for (let i = 0; i < streamCount && Date.now() < deadline; i += 50) {
    const batch = Array.from({ length: Math.min(50, streamCount - i) }, open);
    started.push(...batch.map((stream) => stream.streaming));
    await Promise.race([Promise.all(batch.map((stream) => stream.answered)), sleep(Math.max(0, deadline - Date.now()))]);
  }
  await Promise.race([Promise.all(started), sleep(Math.max(0, deadline - Date.now()))]);
  return {
    opened,
    close: () => {
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}

/** `streamCount` streams open (openStreams), then the server's RSS a second later. */
async function holdStreams(url: string, authorization: string, pid: number, streamCount: number): Promise<{ opened: number; rssMb: number }> {
  const streams = await openStreams(url, authorization, streamCount);
  await sleep(1000);
  const rssMb = statusMb(pid, 'VmRSS');
  streams.close();
  return { opened: streams.opened, rssMb };
}

/** the middle value; of an even count, the upper of the two middle ones */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** every run of the gateway at 64 connections: its peak RSS, and the relay's beside it */
export function peakAt64(cases: { connections: number; gateway: { peakRssMb: number }; relay?: { peakRssMb: number } }[]): { gateway: number; relay: number } {
  const at64 = cases.filter((c) => c.connections === 64);
  return { gateway: Math.max(...at64.map((c) => c.gateway.peakRssMb)), relay: Math.max(...at64.map((c) => c.relay?.peakRssMb ?? Number.NaN)) };
}
