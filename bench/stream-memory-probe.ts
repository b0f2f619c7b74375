// Where an open stream's memory goes (issue 21): opens N slow streams through a fresh gateway and
// then through the bare relay, and prints per stream the growth of RSS (by kind of mapping: glibc's
// [heap], other anonymous memory, files), V8's heap used, external memory and ArrayBuffers (from a
// preload, bench/memory-usage-preload.mjs, after a full GC), at open and every 20 s after — as it is,
// and after a full GC. A chunk a second by default: the slope over time is what each delivered
// chunk leaves behind.
//
//   node bench/stream-memory-probe.ts [N=1000] [gateway,relay] [hold s=20]
//
// PROBE_CHUNK_MS (default 1000): the simulator's gap between chunks. PROBE_REF=HEAD: the gateway
// of that revision (before/after). PROBE_SNAPSHOTS=1: heap snapshots (SIGUSR2) at 0 and N streams,
// in /tmp/probe/. BENCH_NODE_ARGS applies to the gateway as in the bench.
import { spawn } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway } from './gateway.ts';
import { openStreams } from './memory.ts';
import { cleanEnv, firstLine, stop, stopAll, track } from './processes.ts';
import { startSimulator } from './servers.ts';
import { BENCH, GATEWAY_CORE, gatewayNodeArgs, SIM_KEY } from './settings.ts';
import { createTmp, removeTmp, snapshot } from './workspace.ts';

const N = Number(process.argv[2] ?? 1000);
const targets = (process.argv[3] ?? 'gateway,relay').split(',');
const holdS = Number(process.argv[4] ?? 20);
const chunkMs = Number(process.env.PROBE_CHUNK_MS ?? 1000);
const snapshots = process.env.PROBE_SNAPSHOTS === '1';
const OUT = '/tmp/probe';
mkdirSync(OUT, { recursive: true });
const probeArgs = ['--expose-gc', `--import=${join(BENCH, 'memory-usage-preload.mjs')}`, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${OUT}`];

interface Sample { rss: number; heapRss: number; anonRss: number; fileRss: number; heapUsed: number; external: number; arrayBuffers: number; spaces: Record<string, { used: number; size: number }> }

function smaps(pid: number): { heapRss: number; anonRss: number; fileRss: number; rss: number } {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  let kind = '';
  const out = { heapRss: 0, anonRss: 0, fileRss: 0, rss: 0 };
  for (const line of text.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) {
      const name = line.split(/\s+/)[5] ?? '';
      kind = name === '[heap]' ? 'heap' : name.startsWith('/') ? 'file' : 'anon';
    } else if (line.startsWith('Rss:')) {
      const kb = Number(line.split(/\s+/)[1]);
      out.rss += kb;
      if (kind === 'heap') out.heapRss += kb;
      else if (kind === 'file') out.fileRss += kb;
      else out.anonRss += kb;
    }
  }
  return out;
}

async function sample(pid: number, file: string): Promise<Sample> {
  const maps = smaps(pid);
  const before = (() => { try { return readFileSync(file, 'utf8').trim().split('\n').length; } catch { return 0; } })();
  process.kill(pid, 'SIGWINCH');
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    let lines: string[] = [];
    try { lines = readFileSync(file, 'utf8').trim().split('\n'); } catch { /* not yet */ }
    if (lines.length > before) {
      const u = JSON.parse(lines.at(-1)!) as { heapUsed: number; external: number; arrayBuffers: number; spaces: Sample['spaces'] };
      return { ...maps, heapUsed: u.heapUsed / 1024, external: u.external / 1024, arrayBuffers: u.arrayBuffers / 1024, spaces: u.spaces };
    }
  }
  throw new Error('no memory line');
}

/** after a full GC and a second for V8 to release what it freed */
async function settled(pid: number, file: string): Promise<Sample> {
  await sample(pid, file);
  await sleep(1000);
  return sample(pid, file);
}

async function heapSnapshot(pid: number, label: string): Promise<void> {
  if (!snapshots) return;
  process.kill(pid, 'SIGUSR2');
  await sleep(15_000); // written synchronously by the target; generous
  process.stderr.write(`snapshot ${label} requested (${OUT})\n`);
}

function diff(label: string, a: Sample, b: Sample, n: number): void {
  const per = (x: number, y: number) => `${(((y - x) * 1024) / n / 1024).toFixed(2)} KB`;
  process.stdout.write(
    `${label}: rss ${(b.rss / 1024).toFixed(0)} MB (+${per(a.rss, b.rss)}/stream: [heap] ${per(a.heapRss, b.heapRss)}, anon ${per(a.anonRss, b.anonRss)}, file ${per(a.fileRss, b.fileRss)}); ` +
      `V8 heapUsed ${per(a.heapUsed, b.heapUsed)}, external ${per(a.external, b.external)}, arrayBuffers ${per(a.arrayBuffers, b.arrayBuffers)}; ` +
      `space sizes: new ${per(a.spaces.new_space!.size / 1024, b.spaces.new_space!.size / 1024)}, old ${per(a.spaces.old_space!.size / 1024, b.spaces.old_space!.size / 1024)}\n`,
  );
}

async function measure(name: string, start: () => Promise<{ pid: number; url: string; authorization: string; child: import('node:child_process').ChildProcess }>): Promise<void> {
  const t = await start();
  const file = `/tmp/memory-probe-${t.pid}.jsonl`;
  await sleep(2000);
  const idle = await sample(t.pid, file);
  await heapSnapshot(t.pid, `${name} idle`);
  const base = await settled(t.pid, file);
  const startedAt = Date.now();
  const held = await openStreams(t.url, t.authorization, N, 600_000);
  process.stdout.write(`${name}: ${held.opened} of ${N} streams open in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
  await sleep(1000);
  const open = await sample(t.pid, file);
  diff(`${name} idle→open`, base, open, N);
  await heapSnapshot(t.pid, `${name} open`);
  for (let waited = 0; waited < holdS; waited += 20) {
    await sleep(Math.min(20, holdS - waited) * 1000);
    const later = await sample(t.pid, file);
    diff(`${name} idle→open+${Math.min(waited + 20, holdS)}s`, base, later, N);
    diff(`${name}   after a full GC`, base, await settled(t.pid, file), N);
  }
  process.stdout.write(`${name} idle rss ${(idle.rss / 1024).toFixed(0)} MB\n`);
  held.close();
  await stop(t.child);
}

createTmp();
// PROBE_REF=HEAD: the gateway of that revision (exported to the temporary directory), for a before/after
if (process.env.PROBE_REF) process.stderr.write(`gateway at ${snapshot(process.env.PROBE_REF).slice(0, 12)}\n`);
try {
  const sim = await startSimulator(0, { chunks: 120, chunkDelayMs: chunkMs });
  for (const name of targets) {
    if (name === 'gateway') {
      await measure('gateway', async () => {
        // startGateway passes BENCH_NODE_ARGS; the probe's own arguments are added through NODE_OPTIONS
        const g = await startGateway(sim, { MODELGATE_UPSTREAM_CONNECTIONS: String(N), NODE_OPTIONS: probeArgs.join(' ') }, false);
        return { pid: g.pid, url: g.chatUrl, authorization: g.authorization, child: g.child };
      });
    } else {
      await measure('relay', async () => {
        const child = track(spawn('taskset', ['-c', GATEWAY_CORE, process.execPath, ...gatewayNodeArgs.filter((a) => a.startsWith('--max-semi')), ...probeArgs, join(BENCH, 'bare-relay.ts'), new URL(sim.baseUrl).origin, '0', String(N)], { env: cleanEnv({}), stdio: ['ignore', 'pipe', 'inherit'] }));
        const { port, pid } = JSON.parse(await firstLine(child, 'relay')) as { port: number; pid: number };
        return { pid, url: `http://127.0.0.1:${port}/v1/chat/completions`, authorization: `Bearer ${SIM_KEY}`, child };
      });
    }
  }
} finally {
  await stopAll();
  removeTmp();
}
