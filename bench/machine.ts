// What the benchmark scripts read off the machine: CPU time of processes and of the whole
// machine (/proc), peak memory, a free port, and a wait for other processes to go quiet.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export const CLK_TCK = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(out.stdout?.trim());
  return Number.isInteger(value) && value > 0 ? value : 100;
})();

/** utime + stime of every thread of the process, in microseconds (resolution 1/CLK_TCK s). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLK_TCK;
}

/**
 * Busy time (user, nice, system, irq, softirq, steal) summed over every core, and the steal part
 * alone, in microseconds. Steal is time the hypervisor ran something else while a vCPU wanted to
 * run: on a shared host it slows the benchmark like another process would, but no process shows it.
 */
function machineMicros(): { busy: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!; // the "cpu" line: all cores
  const [, user, nice, system, , , irq, softirq, steal = 0] = line.trim().split(/\s+/).map(Number);
  return { busy: ((user! + nice! + system! + irq! + softirq! + steal) * 1e6) / CLK_TCK, steal: (steal * 1e6) / CLK_TCK };
}

function ownMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

export interface LoadSample {
  at: number;
  busy: number;
  steal: number;
  own: number;
}

export function sampleLoad(): LoadSample {
  return { at: performance.now(), ...machineMicros(), own: ownMicros() };
}

/**
 * CPU used on the machine by processes other than the benchmark's own, in cores, between two
 * samples: everything busy minus this script and `oursMicros` (its children, measured by PID).
 * The host's steal counts as such a process (`stealCores` tells how much of it it was).
 */
export function otherCores(from: LoadSample, to: LoadSample, oursMicros: number): number {
  const elapsedUs = (to.at - from.at) * 1000;
  return Math.max(0, (to.busy - from.busy - (to.own - from.own) - oursMicros) / elapsedUs);
}

/** The part of `otherCores` that was the host's steal, in cores. */
export function stealCores(from: LoadSample, to: LoadSample): number {
  return Math.max(0, (to.steal - from.steal) / ((to.at - from.at) * 1000));
}

/** " — other processes used 12% of a core meanwhile (the host's steal 9%)", or "" below 10 %. */
export function otherLoadNote(cores: number, steal: number): string {
  if (cores < 0.1) return '';
  return ` — other processes used ${(100 * cores).toFixed(0)}% of a core meanwhile` + (steal >= 0.01 ? ` (the host's steal ${(100 * steal).toFixed(0)}%)` : '');
}

/**
 * Waits until other processes use less than `quietCores` of the machine, up to `maxWaitS`
 * seconds; returns what they used in the last second measured, in cores.
 */
export async function waitForQuiet(ourPids: number[], maxWaitS: number, quietCores: number): Promise<number> {
  const deadline = Date.now() + maxWaitS * 1000;
  let warned = false;
  for (;;) {
    const before = sampleLoad();
    const oursBefore = ourPids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
    await sleep(1000);
    const others = otherCores(before, sampleLoad(), ourPids.reduce((sum, pid) => sum + cpuMicros(pid), 0) - oursBefore);
    if (others < quietCores || Date.now() >= deadline) {
      if (others >= quietCores) process.stderr.write(`bench: other processes still use ${(100 * others).toFixed(0)}% of a core; measuring anyway\n`);
      return others;
    }
    if (!warned) process.stderr.write(`bench: other processes use ${(100 * others).toFixed(0)}% of a core; waiting for quiet (up to ${maxWaitS} s)…\n`);
    warned = true;
    await sleep(2000);
  }
}

/** A kB field of /proc/<pid>/status, in MB. */
export function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** A port nobody listens on right now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
