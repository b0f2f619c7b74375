import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** the threads of Node's V8 platform pool (garbage collection helpers, background compilation) */
const V8_POOL_THREAD = 'V8Worker';

/**
 * 10, not 19: a thread at 19 gets ~1.5 % of a core beside a busy one, so on a machine loaded by
 * other processes the sweeper fell behind and the heap grew (idle 153 → 201 MB, peak at 64
 * connections 290 → 339–453 MB in A/B runs); at 10 it gets ~10 %, and the event loop ~70 % even
 * while all four pool threads mark.
 */
export const V8_POOL_NICE = 10;

/**
 * Lowers the scheduling priority of V8's background threads (on Linux a thread has its own nice
 * value). Their work — concurrent marking and sweeping of a full GC, parallel scavenging,
 * background compilation — then runs when the event loop does not want the core. On a gateway
 * given one core, V8's four pool threads otherwise share it equally with the event loop: a full
 * GC's concurrent marking held the event loop to a fifth of the core for ~100 ms under load
 * (perf, 64 connections), the largest stall of a run. Where there are spare cores the threads
 * run there as before. A thread waiting on them sleeps, so they run then whatever their value.
 * Best effort: elsewhere, or without /proc, nothing changes. Returns how many threads it lowered.
 */
export function yieldV8BackgroundThreads(nice: number): number {
  if (process.platform !== 'linux') return 0;
  let lowered = 0;
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== V8_POOL_THREAD) continue;
        setPriority(Number(tid), nice);
        lowered++;
      } catch {
        // the thread ended, or the value may not be changed here
      }
    }
  } catch {
    // no /proc
  }
  return lowered;
}
