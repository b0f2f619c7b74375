import { setFlagsFromString } from 'node:v8';
import { nodeWasGiven } from './node-flags.ts';

/**
 * Turns off V8's minor GC task, unless node was given the flag either way: the young generation
 * is then collected when it is full, not from a task V8 posts once it is 80 % full.
 *
 * Why: a scavenge costs what survives it (the requests in flight, the write-behind's queue), not
 * what it frees. Started at 80 %, the gateway's 8-MB semi-spaces were collected every ~5.9 MB
 * allocated; at 100 % every ~7.5 MB (`bench/scavenge-trace.ts`, 64 connections against the 50 ms
 * upstream, 2026-11-30): 56 scavenges in a run instead of 70–72, of the same pause (~2.0–2.3 ms),
 * so ~25 % less of the event loop's and V8's threads' time in them, and ~120 KB promoted a
 * scavenge instead of ~150, with no more memory: the semi-spaces are the same size. In node the
 * task only moves the scavenge to the next turn of the event loop; it does not find idle time.
 * V8 reads the flag each time it would post the task, so it takes effect set here.
 */
export function turnOffMinorGcTask(): boolean {
  if (nodeWasGiven('minor-gc-task')) return false;
  setFlagsFromString('--no-minor-gc-task');
  return true;
}
