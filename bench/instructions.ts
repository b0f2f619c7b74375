// Instructions per request by thread, counted by valgrind's callgrind, for revisions of the gateway
// side by side (issue 21). On these shared VMs the CPU time of a request moves by ±10 % from one
// run to the next, more than most single changes to the request path are worth; the instructions
// each thread executes repeat far better (the event loop's to about 1 %; the V8 pool's collections
// and compiles vary more). Every revision's gateway runs under callgrind at the same time (its count
// does not depend on the machine's load): set up as the bench sets it up, warmed up, its counters
// zeroed, then a fixed number of requests over 8 connections (by default), and its counters dumped per thread.
// User-space instructions only: the kernel's side of a system call (a socket or file write) is not in them.
//
//   node bench/instructions.ts [rev ...]   git revisions to compare, "." for the working tree,
//                                          "relay" for bench/bare-relay.ts (the reference point)
//                                          (default: HEAD and the working tree); INSTR_REQUESTS
//                                          (default 1500), INSTR_WARMUP (2500), the first of BENCH_MODES,
//                                          INSTR_CONNECTIONS (8), INSTR_LATENCY_MS (0: the upstream's
//                                          delay; with one connection the gateway meets each
//                                          request alone, as on a core that idles between answers)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startGateway } from './gateway.ts';
import { cleanEnv, firstLine, requireTool, stop, track } from './processes.ts';
import type { Mode } from './results.ts';
import { startSimulator, upstreamTrust, type Simulator } from './servers.ts';
import { BODIES, modes, numberEnv, ROOT, SIM_KEY } from './settings.ts';
import { createTmp, exportRevision, gatewayEntry, removeTmp, tmp } from './workspace.ts';

const revisions = process.argv.length > 2 ? process.argv.slice(2) : ['HEAD', '.'];
const requests = numberEnv('INSTR_REQUESTS', 1500);
const warmup = numberEnv('INSTR_WARMUP', 2500);
const mode = (modes[0] ?? 'json') as Mode;
const CONNECTIONS = numberEnv('INSTR_CONNECTIONS', 8);
const LATENCY_MS = numberEnv('INSTR_LATENCY_MS', 0);

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

/** Instructions per request by thread name (threads of one name summed), from the dump callgrind wrote per thread. */
async function measure(revision: string, n: number, sim: Simulator): Promise<Map<string, number>> {
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
    return byThread;
  } finally {
    await stop(gateway.child, 60_000);
  }
}

async function startRelayUnder(prefix: string[], sim: Simulator): Promise<Measured> {
  const args = [...prefix.slice(1), process.execPath, join(ROOT, 'bench', 'bare-relay.ts'), new URL(sim.baseUrl).origin, '0'];
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
    const counts = await Promise.all(revisions.map((revision, n) => measure(revision, n, sim)));
    const threads = [...new Set(counts.flatMap((c) => [...c.keys()]))].sort((a, b) => (counts[0]!.get(b) ?? 0) - (counts[0]!.get(a) ?? 0));
    const k = (value: number) => (value / 1000).toFixed(1);
    const rows = threads.filter((t) => counts.some((c) => (c.get(t) ?? 0) >= 100)).map((t) => `| ${t} | ${counts.map((c) => k(c.get(t) ?? 0)).join(' | ')} |`);
    const totals = counts.map((c) => [...c.values()].reduce((a, b) => a + b, 0));
    process.stdout.write(`\nthousands of instructions per request (${mode}, ${LATENCY_MS} ms upstream, ${CONNECTIONS} connections)\n\n`);
    process.stdout.write(`| thread | ${revisions.join(' | ')} |\n|---|${revisions.map(() => '--:|').join('')}\n${rows.join('\n')}\n| **in all** | ${totals.map((t) => `**${k(t)}**`).join(' | ')} |\n`);
  } finally {
    await stop(sim.child);
  }
} finally {
  removeTmp();
}
