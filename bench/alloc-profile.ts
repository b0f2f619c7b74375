// Where the gateway allocates, per request (issue 21: every byte allocated is young-generation GC
// work on the event loop and V8's threads). The gateway from the sources (file names in the
// report) with bench/alloc-sampling-preload.mjs, warmed up as the bench warms it, then V8's
// sampling heap profiler over one measured wrk run at 64 connections: bytes per request by the
// allocating function and by the gateway's own function nearest to it on the stack.
//
//   node bench/alloc-profile.ts     the first of BENCH_LATENCIES (default 0) and BENCH_MODES
//                                   (default json); ALLOC_TOP rows (default 25); ALLOC_LIVE=1: only
//                                   what is still in the heap at the end of the run (promoted to the
//                                   old generation, or held by requests in flight); ALLOC_SURVIVED=1:
//                                   what outlived at least one scavenge (copied or promoted by V8);
//                                   ALLOC_CALLERS=<function name>: who calls that allocating function
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from './gateway.ts';
import { stop } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator } from './servers.ts';
import { BENCH, durationS, latencies, modes, numberEnv, ROOT } from './settings.ts';
import { codeRoot, createTmp, removeTmp, sourcesEntry, tmp } from './workspace.ts';
import { measuredRun, warmUp } from './wrk.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: ProfileNode[];
}

const latency = latencies[0]!;
const mode = (modes[0] ?? 'json') as Mode;
const top = numberEnv('ALLOC_TOP', 25);
/** ALLOC_CALLERS=<function name>: what calls the function that allocates, ALLOC_CALLER_DEPTH frames up (default 3) */
const callersOf = process.env.ALLOC_CALLERS;
const callerDepth = numberEnv('ALLOC_CALLER_DEPTH', 3);

createTmp();
const profileFile = join(tmp, 'alloc-profile.json');
const sim = await startSimulator(latency);
try {
  const gateway = await startGateway(sim, { NODE_OPTIONS: `--import=${join(BENCH, 'alloc-sampling-preload.mjs')}`, ALLOC_PROFILE_FILE: profileFile, ALLOC_LIVE: process.env.ALLOC_LIVE ?? '', ALLOC_SURVIVED: process.env.ALLOC_SURVIVED ?? '' }, true, { main: sourcesEntry(codeRoot) });
  try {
    await warmUp(gateway.chatUrl, gateway.authorization, mode, 64);
    gateway.child.kill('SIGWINCH');
    // live objects are read under load: a gateway gone idle runs a memory-reducing full GC
    const live = process.env.ALLOC_LIVE === '1';
    const stopAt = live ? setTimeout(() => gateway.child.kill('SIGWINCH'), (durationS - 1) * 1000) : undefined;
    const run = await measuredRun(gateway.chatUrl, gateway.authorization, mode, 64, sim, gateway.pid);
    if (!live) gateway.child.kill('SIGWINCH');
    clearTimeout(stopAt);
    // the preload says when the profile is on disk (in the gateway's stderr file)
    for (let i = 0; i < 200 && !readFileSync(join(tmp, 'gateway-1.stderr'), 'utf8').includes('alloc-profile written'); i++) await new Promise((r) => setTimeout(r, 50));
    report(JSON.parse(readFileSync(profileFile, 'utf8')).head as ProfileNode, run.result.requests);
  } finally {
    await stop(gateway.child);
  }
} finally {
  await stop(sim.child);
  removeTmp();
}

function report(head: ProfileNode, requests: number): void {
  const where = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, '')}:${f.lineNumber + 1}`;
  const own = (f: CallFrame) => f.url.includes(`${ROOT}/src/`);
  const bySelf = new Map<string, number>();
  const byOwn = new Map<string, number>();
  let total = 0;
  const byCaller = new Map<string, number>();
  const walk = (node: ProfileNode, nearestOwn: string, stack: string[]) => {
    const here = own(node.callFrame) ? where(node.callFrame) : nearestOwn;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const self = where(node.callFrame);
      bySelf.set(self, (bySelf.get(self) ?? 0) + node.selfSize);
      byOwn.set(here, (byOwn.get(here) ?? 0) + node.selfSize);
      if (callersOf && node.callFrame.functionName === callersOf) {
        const path = stack.slice(-callerDepth).join(' ← ');
        byCaller.set(path, (byCaller.get(path) ?? 0) + node.selfSize);
      }
    }
    stack.push(where(node.callFrame));
    for (const child of node.children) walk(child, here, stack);
    stack.pop();
  };
  walk(head, '(no gateway function on the stack)', []);
  const table = (title: string, map: Map<string, number>) => {
    console.log(`\n| ${title} | bytes per request |\n|---|--:|`);
    for (const [name, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${name} | ${(bytes / requests).toFixed(0)} |`);
  };
  console.log(`${latency} ms upstream, ${mode}, 64 connections: ${requests} requests, ${(total / requests).toFixed(0)} bytes ${process.env.ALLOC_LIVE === '1' ? 'still in the heap at the end' : process.env.ALLOC_SURVIVED === '1' ? 'that outlived a scavenge' : 'allocated'} per request (sampled)`);
  table('allocating function', bySelf);
  table('nearest gateway function on the stack', byOwn);
  if (callersOf) table(`${callersOf}: its callers, nearest last (${callerDepth} frames)`, byCaller);
}
