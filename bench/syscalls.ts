// System calls per request of the relay, the floor and the gateway, side by side (issue 21: the
// kernel's share of a request is most of the relay's CPU; a gateway that makes more calls per
// request pays for each). Each server in turn at 64 connections, warmed up as the bench warms it,
// then one wrk run with `strace -c -f` attached: calls per request by name (strace slows the
// server; the counts, not the times, are the figure).
//
//   node bench/syscalls.ts      the first of BENCH_LATENCIES (default 0) and BENCH_MODES (default json)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from './gateway.ts';
import { requireTool, stop } from './processes.ts';
import type { Mode } from './results.ts';
import { FLOOR_CLIENT_KEY, startFloorRelay, startRelay, startSimulator } from './servers.ts';
import { latencies, modes, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp, tmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

requireTool('strace', 'sudo apt-get install -y strace');
const latency = latencies[0]!;
const mode = (modes[0] ?? 'json') as Mode;

/** strace -c's table: calls by name. */
function parseCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const cells = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors], syscall
    if (cells.length < 5 || !/^\d/.test(cells[0]!) || cells.at(-1) === 'total') continue;
    counts.set(cells.at(-1)!, Number(cells[3]));
  }
  return counts;
}

createTmp();
const perServer = new Map<string, { counts: Map<string, number>; requests: number }>();
const sim = await startSimulator(latency);
try {
  const servers = [
    { name: 'relay', start: () => startRelay(sim), auth: `Bearer ${SIM_KEY}` },
    { name: 'floor', start: () => startFloorRelay(sim, tmp), auth: `Bearer ${FLOOR_CLIENT_KEY}` },
    { name: 'gateway', start: async () => startGateway(sim), auth: '' },
  ];
  for (const server of servers) {
    const started = await server.start();
    const auth = 'authorization' in started ? (started.authorization as string) : server.auth;
    try {
      await warmUp(started.chatUrl, auth, mode, 64);
      const out = join(tmp, `strace-${server.name}.txt`);
      const strace = spawn('strace', ['-c', '-f', '-o', out, '-p', String(started.pid)], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 500)); // attached to every thread before the run
      const run = await measuredRun(started.chatUrl, auth, mode, 64, sim, started.pid);
      strace.kill('SIGINT');
      await once(strace, 'exit');
      perServer.set(server.name, { counts: parseCounts(readFileSync(out, 'utf8')), requests: run.result.requests });
    } finally {
      await stop(started.child);
    }
  }
} finally {
  await stop(sim.child);
  removeTmp();
}

const names = [...new Set([...perServer.values()].flatMap((s) => [...s.counts.keys()]))];
const perRequest = (server: string, name: string) => {
  const s = perServer.get(server)!;
  return (s.counts.get(name) ?? 0) / s.requests;
};
names.sort((a, b) => perRequest('gateway', b) - perRequest('gateway', a));
console.log(`${latency} ms upstream, ${mode}, 64 connections: system calls per request\n`);
console.log('| call | relay | floor | gateway |\n|---|--:|--:|--:|');
for (const name of names.filter((n) => ['relay', 'floor', 'gateway'].some((s) => perRequest(s, n) >= 0.01))) {
  console.log(`| ${name} | ${perRequest('relay', name).toFixed(2)} | ${perRequest('floor', name).toFixed(2)} | ${perRequest('gateway', name).toFixed(2)} |`);
}
const sum = (server: string) => names.reduce((total, name) => total + perRequest(server, name), 0);
console.log(`| **in all** | **${sum('relay').toFixed(2)}** | **${sum('floor').toFixed(2)}** | **${sum('gateway').toFixed(2)}** |`);
