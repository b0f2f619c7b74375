// Whether the write-behind keeps up under load (issue 21: at 0 ms upstream, 64 connections, the
// flush thread — nice 10, below the event loop — fell behind: pending rows and RSS grew for as long
// as the load lasted). One gateway, warmed up as the bench warms it, then one measured run; every
// 3 s (1 s past 256 connections) its RSS and the /metrics gauges of the write-behind: rows waiting, age of the oldest.
//
//   node bench/flush-lag.ts     the first of BENCH_LATENCIES (default 0) and BENCH_MODES (default json);
//                               LAG_CONNECTIONS for the measured run (default 64; 1000: the bench's wide case)
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_ADMIN_TOKEN } from './admin-client.ts';
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator } from './servers.ts';
import { latencies, modes } from './settings.ts';
import { createTmp, removeTmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

const latency = latencies[0]!;
const mode = (modes[0] ?? 'json') as Mode;
const connections = Number(process.env.LAG_CONNECTIONS ?? 64);
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

createTmp();
const sim = await startSimulator(latency);
try {
  const gateway = await startGateway(sim, connections > 256 ? { MODELGATE_UPSTREAM_CONNECTIONS: String(connections) } : {});
  try {
    const started = performance.now();
    let done = false;
    const watch = (async () => {
      while (!done) {
        const text = await fetch(`${gateway.origin}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } }).then((r) => r.text(), () => '');
        const gauge = (name: string) => text.split('\n').find((line) => line.startsWith(name))?.split(' ').at(-1) ?? '?';
        console.log(`${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s  RSS ${rssMb(gateway.pid).toFixed(0)} MB  rows waiting ${gauge('modelgate_pending_writes')}  oldest ${gauge('modelgate_flush_lag_seconds')} s`);
        await sleep(connections > 256 ? 1000 : 3000);
      }
    })();
    await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
    const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, connections, sim, gateway.pid);
    done = true;
    await watch;
    console.log(`peak ${Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${gateway.pid}/status`, 'utf8'))![1]) / 1024 | 0} MB; ${latency} ms upstream, ${mode}, ${connections} connections: ${run.result.rps.toFixed(0)} requests/s in the measured run`);
  } finally {
    await stop(gateway.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}
