import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

// On Linux a thread has its own nice value. The gateway's background threads — V8's pool and the
// SQLite flush thread — run below the event loop, so that on one core requests come first.

/**
 * 10, not 19: a thread at 19 gets ~1.5 % of a core beside a busy one, so on a machine loaded by
 * other processes V8's sweeper fell behind and the heap grew (idle 153 → 201 MB, peak at 64
 * connections 290 → 339–453 MB in A/B runs), and a saturated gateway would starve the flush (an
 * unprivileged thread cannot raise its priority back); at 10 such a thread gets ~10 %, and the
 * event loop ~70 % even while all four of V8's pool threads mark.
 */
export const BACKGROUND_NICE = 10;

/** the threads of Node's V8 platform pool (garbage collection helpers, background compilation) */
const V8_POOL_THREAD = 'V8Worker';

/**
 * Lowers V8's background threads: concurrent marking and sweeping of a full GC, parallel
 * scavenging and background compilation then run when the event loop does not want the core. On
 * a gateway given one core the pool threads otherwise share it equally with the event loop. Put
 * back at nice 0 (bench/stall-trace.ts, saturated, 64 connections, 2026-11-29): 59 event-loop
 * stalls of ≥ 8 ms in 10 s instead of 19, the longest 31–35 ms with the pool threads holding ~80 %
 * of the core (27 ms as shipped), p99 68 against 49 ms, CPU 148 against 119 µs a request. Where
 * there are spare cores they run there as before; a thread waiting on them sleeps, so they run
 * then whatever their value. Best effort: elsewhere, or without /proc, nothing changes.
 */
export function lowerV8PoolThreads(nice = BACKGROUND_NICE): void {
  if (process.platform !== 'linux') return;
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === V8_POOL_THREAD) setPriority(Number(tid), nice);
      } catch {
        // the thread ended, or the value may not be changed here
      }
    }
  } catch {
    // no /proc
  }
}

/** Lowers the calling thread (a worker's own). Best effort, as above. */
export function lowerThisThread(nice = BACKGROUND_NICE): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, nice);
  } catch {
    // not Linux, or not allowed: normal priority
  }
}
