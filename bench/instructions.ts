// Instructions per request by thread, counted by valgrind's callgrind, for revisions of the gateway
// side by side (issue 21). On these shared VMs the CPU time of a request moves by ±10 % from one
// run to the next, more than most single changes to the request path are worth; the instructions
// each thread executes repeat far better (the event loop's to a few %; the V8 pool's collections
// and compiles vary more). Every revision's gateway runs under callgrind at the same time (its
// count does not depend on the machine's load): set up as the bench sets it up, warmed up as the
// bench warms it (20,000 requests: after 2,500 much of the request path still ran in V8's middle
// tier, Maglev, and TurboFan was compiling the rest — ~30 % above the steady state), its counters
// zeroed, then a fixed number of requests over 8 connections (by default; 6,000, over which a full
// GC's share weighs less than over 1,500), and its counters dumped per thread.
// User-space instructions only: the kernel's side of a system call (a socket or file write) is not in them.
//
//   node bench/instructions.ts [rev ...]   git revisions to compare, "." for the working tree,
//                                          "relay" for bench/bare-relay.ts (the reference point)
//                                          (default: HEAD and the working tree); INSTR_REQUESTS
//                                          (default 6000), INSTR_WARMUP (20000), the first of BENCH_MODES,
//                                          INSTR_CONNECTIONS (8), INSTR_LATENCY_MS (0: the upstream's
//                                          delay; with one connection the gateway meets each
//                                          request alone, as on a core that idles between answers),
//                                          INSTR_RELAY_NODE_ARGS (node's options for the relay),
//                                          INSTR_TOP (0: the event loop's N costliest functions by
//                                          their own instructions, then its calls into V8's runtime;
//                                          JIT code is named when node is given
//                                          --perf-basic-prof-only-functions, in BENCH_NODE_ARGS for a
//                                          gateway — with the bench's --max-semi-space-size=8 — or
//                                          INSTR_RELAY_NODE_ARGS), INSTR_KEEP (a folder: the event
//                                          loop's callgrind file and node's perf map are copied there,
//                                          for a second look; only each function's own instructions
//                                          are figures: callgrind's sums with callees are unreliable for
//                                          V8's code, whose calls and returns do not always pair up),
//                                          INSTR_THREAD (MainThread: the thread INSTR_TOP and INSTR_KEEP
//                                          look at, by name — WorkerThread is the flush thread)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { runtimeCalls, topFunctions, type FunctionCost, type RuntimeCalls } from './callgrind-functions.ts';
import { startGateway } from './gateway.ts';
import { cleanEnv, firstLine, requireTool, stop, track } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator, upstreamTrust, type Simulator } from './servers.ts';
import { BODIES, modes, numberEnv, ROOT, SIM_KEY } from './settings.ts';
import { createTmp, exportRevision, gatewayEntry, removeTmp, tmp } from './workspace.ts';

const revisions = process.argv.length > 2 ? process.argv.slice(2) : ['HEAD', '.'];
const requests = numberEnv('INSTR_REQUESTS', 6000);
const warmup = numberEnv('INSTR_WARMUP', 20_000);
const mode = (modes[0] ?? 'json') as Mode;
const CONNECTIONS = numberEnv('INSTR_CONNECTIONS', 8);
const LATENCY_MS = numberEnv('INSTR_LATENCY_MS', 0);
const top = numberEnv('INSTR_TOP', 0);
const keepIn = process.env.INSTR_KEEP;
const topThread = process.env.INSTR_THREAD ?? 'MainThread';
/** node's options for the relay (the gateway's are BENCH_NODE_ARGS): --perf-basic-prof-only-functions names its JIT code */
const relayNodeArgs = (process.env.INSTR_RELAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

requireTool('valgrind', 'sudo apt-get install -y valgrind');

/** The revision exported into a folder of the run (exportRevision); "." is the working tree. */
function codeOf(revision: string, n: number): string {
  if (revision === '.') return ROOT;
  const dir = join(tmp, `rev-${n}`);
  exportRevision(revision, dir);
  return dir;
}

/** What is measured: a gateway, or the relay (its key is the simulator's: it forwards it). */
interface Measured {
  child: ChildProcess;
  pid: number;
  chatUrl: string;
  authorization: string;
}

async function send(gateway: Measured, count: number): Promise<void> {
  const url = new URL(gateway.chatUrl);
  const pool = new Pool(url.origin, { connections: CONNECTIONS });
  let sent = 0;
  try {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (sent++ < count) {
          const response = await pool.request({ method: 'POST', path: url.pathname, headers: { authorization: gateway.authorization, 'content-type': 'application/json' }, body: BODIES[mode] });
          await response.body.text();
          if (response.statusCode !== 200) throw new Error(`the gateway answered ${response.statusCode}`);
        }
      }),
    );
  } finally {
    await pool.close();
  }
}

/** callgrind_control finds the process by names that include $HOST, which the gateway's environment sets to its address. */
const control = (command: string, pid: number) => execFileSync('callgrind_control', [command, String(pid)], { env: { ...process.env, HOST: '127.0.0.1' }, stdio: 'ignore' });

/** Instructions per request by thread name (threads of one name summed), from the dump callgrind wrote per thread; the event loop's costliest functions and runtime calls (INSTR_TOP). */
async function measure(revision: string, n: number, sim: Simulator): Promise<{ byThread: Map<string, number>; functions: FunctionCost[]; runtime: RuntimeCalls[] }> {
  const out = join(tmp, `callgrind-${n}`);
  const prefix = ['valgrind', '--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}.%p`];
  const gateway = revision === 'relay' ? await startRelayUnder(prefix, sim) : await startGateway(sim, {}, true, { prefix, main: gatewayEntry(codeOf(revision, n)), readyTimeoutMs: 600_000 });
  try {
    await send(gateway, warmup);
    control('--zero', gateway.pid);
    await send(gateway, requests);
    // thread k of callgrind's files is the k-th thread started: /proc lists them by id, in that order
    const names = readdirSync(`/proc/${gateway.pid}/task`)
      .map(Number)
      .sort((a, b) => a - b)
      .map((tid) => readFileSync(`/proc/${gateway.pid}/task/${tid}/comm`, 'utf8').trim());
    control('--dump', gateway.pid);
    // one file per live thread, each complete once its totals line is written
    const totals = new Map<number, number>();
    for (let waited = 0; totals.size < names.length; waited += 100) {
      if (waited > 60_000) throw new Error(`callgrind dumped ${totals.size} of ${names.length} threads for ${revision}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const file of readdirSync(tmp).filter((f) => f.startsWith(`callgrind-${n}.${gateway.pid}.1-`))) {
        const thread = Number(file.slice(file.lastIndexOf('-') + 1));
        if (totals.has(thread)) continue; // complete already: not read again
        const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(tmp, file), 'utf8'))?.[1];
        if (total !== undefined) totals.set(thread, Number(total));
      }
    }
    const byThread = new Map<string, number>();
    for (const [thread, total] of totals) {
      const name = names[thread - 1] ?? `thread ${thread}`;
      byThread.set(name, (byThread.get(name) ?? 0) + total / requests);
    }
    // callgrind numbers threads from 1, as started, in two digits; a revision without that thread (the relay has no flush thread) lists nothing
    const threadNumber = names.indexOf(topThread) + 1;
    const threadFile = join(tmp, `callgrind-${n}.${gateway.pid}.1-${String(threadNumber).padStart(2, '0')}`);
    const perfMap = `/tmp/perf-${gateway.pid}.map`;
    if (keepIn && threadNumber > 0) {
      mkdirSync(keepIn, { recursive: true });
      const name = revision === '.' ? 'worktree' : revision.replaceAll('/', '_');
      copyFileSync(threadFile, join(keepIn, `callgrind-${name}.out`));
      if (existsSync(perfMap)) copyFileSync(perfMap, join(keepIn, `perf-${name}.map`));
    }
    const functions = top > 0 && threadNumber > 0 ? topFunctions(threadFile, perfMap, top) : [];
    const runtime = top > 0 && threadNumber > 0 ? runtimeCalls(threadFile, 8) : [];
    return { byThread, functions, runtime };
  } finally {
    await stop(gateway.child, 60_000);
    rmSync(`/tmp/perf-${gateway.pid}.map`, { force: true });
  }
}

async function startRelayUnder(prefix: string[], sim: Simulator): Promise<Measured> {
  const args = [...prefix.slice(1), process.execPath, ...relayNodeArgs, join(ROOT, 'bench', 'bare-relay.ts'), new URL(sim.baseUrl).origin, '0'];
  // HOST as for the gateway: callgrind_control looks the process up by it; the relay forwards the key to the simulator
  const child = track(spawn(prefix[0]!, args, { cwd: ROOT, env: cleanEnv({ ...upstreamTrust(sim), HOST: '127.0.0.1' }), stdio: ['ignore', 'pipe', 'ignore'] }));
  const { port } = JSON.parse(await firstLine(child, 'the bare relay')) as { port: number };
  return { child, pid: child.pid!, chatUrl: `http://127.0.0.1:${port}/v1/chat/completions`, authorization: `Bearer ${SIM_KEY}` };
}

createTmp();
try {
  const sim = await startSimulator(LATENCY_MS);
  try {
    process.stderr.write(`instructions: ${revisions.join(', ')} under callgrind, ${warmup} requests to warm up, then ${requests} counted (${mode})…\n`);
    const measured = await Promise.all(revisions.map((revision, n) => measure(revision, n, sim)));
    const counts = measured.map((m) => m.byThread);
    const threads = [...new Set(counts.flatMap((c) => [...c.keys()]))].sort((a, b) => (counts[0]!.get(b) ?? 0) - (counts[0]!.get(a) ?? 0));
    const k = (value: number) => (value / 1000).toFixed(1);
    const rows = threads.filter((t) => counts.some((c) => (c.get(t) ?? 0) >= 100)).map((t) => `| ${t} | ${counts.map((c) => k(c.get(t) ?? 0)).join(' | ')} |`);
    const totals = counts.map((c) => [...c.values()].reduce((a, b) => a + b, 0));
    process.stdout.write(`\nthousands of instructions per request (${mode}, ${LATENCY_MS} ms upstream, ${CONNECTIONS} connections)\n\n`);
    process.stdout.write(`| thread | ${revisions.join(' | ')} |\n|---|${revisions.map(() => '--:|').join('')}\n${rows.join('\n')}\n| **in all** | ${totals.map((t) => `**${k(t)}**`).join(' | ')} |\n`);
    measured.forEach(({ functions, runtime }, n) => {
      if (functions.length === 0) return;
      const whose = topThread === 'MainThread' ? "the event loop's" : `${topThread}'s`;
      process.stdout.write(`\n${revisions[n]}: ${whose} functions by their own instructions (thousands a request)\n\n`);
      for (const f of functions) process.stdout.write(`${k(f.instructions / requests).padStart(7)}  ${f.name.slice(0, 160)}\n`);
      process.stdout.write(`\n${revisions[n]}: ${whose} calls into V8's runtime (calls and thousands of instructions a request, with what they called)\n\n`);
      for (const r of runtime) process.stdout.write(`${(r.calls / requests).toFixed(2).padStart(7)} ${k(r.instructions / requests).padStart(7)}  ${r.name}\n`);
    });
  } finally {
    await stop(sim.child);
  }
} finally {
  removeTmp();
}
