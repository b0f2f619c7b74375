// What the memory is made of at the bench's wide peak (issue 21: peak RSS at 1,000 streamed
// connections against the 50 ms upstream): the gateway (or, WIDE_RELAY=1, the bare relay) warmed up
// as the bench warms it, then one measured run; every 200 ms its RSS and, through
// bench/memory-usage-preload.mjs, process.memoryUsage() and V8's spaces. Prints the peak (VmHWM),
// those figures at the largest sample, and /proc/<pid>/smaps by mapping at that moment.
//
//   node bench/wide-peak.ts     ROUNDS (default 1), WIDE_ARGS (JSON list of node options added),
//                               WIDE_ENV (JSON object: the gateway's extra environment), WIDE_RELAY=1,
//                               WIDE_SMAPS_DUMP (a path: smaps at the largest sample written to <path>.<round>);
//                               another case: WIDE_CONNECTIONS (1000), AB_LATENCY (50), AB_MODE (stream)
//                               — the peak at 64 connections is the saturated non-streamed case's:
//                               WIDE_CONNECTIONS=64 AB_LATENCY=0 AB_MODE=json
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from './gateway.ts';
import { statusMb } from './machine.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startRelay, startSimulator } from './servers.ts';
import { BENCH, gatewayNodeArgs, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

interface Sample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, { used: number; size: number }>;
  /** V8's malloc'd memory (main isolate), and each worker thread's heap */
  malloced?: number;
  workers?: { name: string; total: number; used: number; malloced: number }[];
}

const extra = JSON.parse(process.env.WIDE_ARGS ?? '[]') as string[];
const connections = Number(process.env.WIDE_CONNECTIONS ?? 1000);
const mode = (process.env.AB_MODE ?? 'stream') as Mode;
gatewayNodeArgs.push(`--import=${join(BENCH, 'memory-usage-preload.mjs')}`, ...extra);
createTmp();
const sim = await startSimulator(Number(process.env.AB_LATENCY ?? 50));
const rounds = Number(process.env.ROUNDS ?? 1);
try {
  for (let r = 0; r < rounds; r++) {
    const probe = `/tmp/wide-probe-${r}.jsonl`;
    rmSync(probe, { force: true });
    const relay = process.env.WIDE_RELAY === '1';
    const gateway = relay
      ? { ...(await startRelay(sim, 1000, [`--import=${join(BENCH, 'memory-usage-preload.mjs')}`])), authorization: `Bearer ${SIM_KEY}` }
      : await startGateway(sim, { MODELGATE_UPSTREAM_CONNECTIONS: '1000', MEMORY_PROBE_FILE: probe, ...JSON.parse(process.env.WIDE_ENV ?? '{}') });
    const probeFile = relay ? `/tmp/memory-probe-${gateway.pid}.jsonl` : probe;
    try {
      await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
      const rss: number[] = [];
      let smaps = '';
      const timer = setInterval(() => {
        const now = statusMb(gateway.pid, 'VmRSS');
        if (now > Math.max(0, ...rss)) smaps = readFileSync(`/proc/${gateway.pid}/smaps`, 'utf8');
        rss.push(now);
        process.kill(gateway.pid, 'SIGWINCH');
      }, 200);
      const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, connections, sim, gateway.pid);
      clearInterval(timer);
      const peak = statusMb(gateway.pid, 'VmHWM');
      const samples = readFileSync(probeFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Sample);
      const top = samples.reduce((a, b) => (b.rss > a.rss ? b : a));
      const mb = (n: number) => (n / 1048576).toFixed(0);
      console.log(`peak ${peak.toFixed(0)} MB, ${run.result.requests} requests, CPU ${(run.gatewayUs / run.result.requests).toFixed(0)} µs; at the largest sample: rss ${mb(top.rss)} heapTotal ${mb(top.heapTotal)} heapUsed ${mb(top.heapUsed)} external ${mb(top.external)} arrayBuffers ${mb(top.arrayBuffers)} spaces ${Object.entries(top.spaces).filter(([, s]) => s.size > 1048576).map(([n, s]) => `${n} ${mb(s.used)}/${mb(s.size)}`).join(', ')}; V8 malloc ${mb(top.malloced ?? 0)}; worker heaps (committed/used/malloc) ${(top.workers ?? []).map((w) => `${w.name} ${mb(w.total)}/${mb(w.used)}/${mb(w.malloced)}`).join(', ') || 'none'}`);
      const byName = new Map<string, number>();
      let name = '';
      for (const line of smaps.split('\n')) {
        const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
        if (head) {
          name = head[1] || '[anon]';
          continue;
        }
        const m = /^Rss:\s+(\d+) kB/.exec(line);
        if (m) byName.set(name, (byName.get(name) ?? 0) + Number(m[1]));
      }
      rmSync(probeFile, { force: true });
      if (process.env.WIDE_SMAPS_DUMP) writeFileSync(`${process.env.WIDE_SMAPS_DUMP}.${r}`, smaps);
      console.log([...byName].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, kb]) => `${n.slice(-50)} ${(kb / 1024).toFixed(1)}`).join('\n'));
    } finally {
      await stop(gateway.child);
    }
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
