// Where the added time to first byte goes (issue 21's TTFB target): the bare relay, the floor
// relay and the gateway in turn, each warmed up like the TTFB case (bench/ttfb.ts), then
// sequential streamed requests on one connection against the 50 ms upstream — the idle gap
// between requests is the TTFB case's. A preload (bench/first-byte-stages-preload.mjs) marks
// each request's way in wall-clock time; the medians per stage:
//   in   the request's headers parsed → its upstream request created (routing, auth, body, checks,
//        reservation, the request for the vendor)
//   out  the upstream's response headers → the first write to the client (for a stream: the
//        first network chunk read and relayed)
// and the client's time to first body byte.
//
//   node bench/first-byte-stages.ts    FB_REQUESTS (default 200), FB_LATENCY (default 50 ms),
//                                      FB_SPLIT=1 (the "in" stage's parts up to the body's first read —
//                                      routing, onRequest hooks, authentication — and to Fastify's handler too),
//                                      the bench's warm-up settings (BENCH_WARMUP_REQUESTS…)
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'undici';
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import { percentile } from './results.ts';
import { FLOOR_CLIENT_KEY, startFloorRelay, startRelay, startSimulator, type Simulator } from './servers.ts';
import { BENCH, BODIES, gatewayNodeArgs, numberEnv, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp, tmp } from './workspace.ts';
import { warmUp } from './wrk.ts';

const requests = numberEnv('FB_REQUESTS', 200);
const PRELOAD = ['--import', `${join(BENCH, 'first-byte-stages-preload.mjs')}${process.env.FB_SPLIT === '1' ? '?split' : ''}`];

type Marks = Partial<Record<'start' | 'body' | 'handler' | 'upstreamCreated' | 'upstreamHeaders' | 'firstWrite' | 'end', number>>;

interface Server {
  name: string;
  pid: number;
  chatUrl: string;
  authorization: string;
  stop(): Promise<void>;
}

async function startServer(name: string, sim: Simulator): Promise<Server> {
  if (name === 'gateway') {
    gatewayNodeArgs.push(...PRELOAD);
    try {
      const gateway = await startGateway(sim);
      return { name, pid: gateway.pid, chatUrl: gateway.chatUrl, authorization: gateway.authorization, stop: () => stop(gateway.child) };
    } finally {
      gatewayNodeArgs.splice(-PRELOAD.length);
    }
  }
  const relay = name === 'relay' ? await startRelay(sim, 256, PRELOAD) : await startFloorRelay(sim, tmp, 'floor-relay.ts', PRELOAD);
  return { name, pid: relay.pid, chatUrl: relay.chatUrl, authorization: `Bearer ${name === 'relay' ? SIM_KEY : FLOOR_CLIENT_KEY}`, stop: () => stop(relay.child) };
}

/** The server's marks since the last call (the preload writes them on SIGUSR2). */
async function takeMarks(pid: number): Promise<Marks[]> {
  const file = join(tmpdir(), `modelgate-first-byte-${pid}.json`);
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 20) {
    try {
      const marks = JSON.parse(readFileSync(file, 'utf8')) as Marks[];
      rmSync(file, { force: true });
      return marks;
    } catch {
      await sleep(20);
    }
  }
  throw new Error(`no marks from process ${pid}: was it started with the preload?`);
}

async function measure(server: Server): Promise<{ ttfb: number[]; marks: Marks[] }> {
  await warmUp(server.chatUrl, server.authorization, 'stream', 1);
  const url = new URL(server.chatUrl);
  const client = new Client(url.origin, { pipelining: 1 });
  try {
    await takeMarks(server.pid);
    const ttfb: number[] = [];
    for (let i = 0; i < requests; i++) {
      const sent = performance.now();
      const response = await client.request({ method: 'POST', path: url.pathname, headers: { authorization: server.authorization, 'content-type': 'application/json' }, body: BODIES.stream });
      let first = 0;
      for await (const _chunk of response.body) first ||= performance.now();
      if (response.statusCode !== 200) throw new Error(`${server.name} answered ${response.statusCode}`);
      ttfb.push(first - sent);
    }
    return { ttfb, marks: await takeMarks(server.pid) };
  } finally {
    await client.close();
  }
}

const median = (values: number[]): number => percentile([...values].sort((a, b) => a - b), 0.5);
const stage = (marks: Marks[], from: keyof Marks, to: keyof Marks): number => median(marks.filter((m) => m[from] !== undefined && m[to] !== undefined).map((m) => m[to]! - m[from]!));

createTmp();
const sim = await startSimulator(numberEnv('FB_LATENCY', 50));
const lines = ['| server | TTFB p50 | in: request → upstream request | out: upstream headers → first write | first write → end |', '|---|--:|--:|--:|--:|'];
try {
  for (const name of ['relay', 'floor', 'gateway']) {
    const server = await startServer(name, sim);
    try {
      process.stderr.write(`first-byte stages: ${name}…\n`);
      const { ttfb, marks } = await measure(server);
      const ms = (value: number) => `${value.toFixed(3)} ms`;
      const split = marks.some((m) => m.handler !== undefined) ? ` (${ms(stage(marks, 'start', 'body'))} to the body, ${ms(stage(marks, 'start', 'handler'))} to the handler)` : '';
      lines.push(`| ${name} | ${ms(median(ttfb))} | ${ms(stage(marks, 'start', 'upstreamCreated'))}${split} | ${ms(stage(marks, 'upstreamHeaders', 'firstWrite'))} | ${ms(stage(marks, 'firstWrite', 'end'))} |`);
    } finally {
      await server.stop();
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stop(sim.child);
  removeTmp();
}
