import { setFlagsFromString } from 'node:v8';
import { nodeWasGiven } from './node-flags.ts';

/**
 * Turns off V8's allocation-site pretenuring (objects allocated straight into the old generation
 * from a site whose objects were seen surviving), unless node was given the flag either way.
 *
 * Why: V8 decides a site early, from the share of its objects alive at one scavenge, and keeps the
 * decision while full GCs find most of the old generation alive, as a gateway's caches keep it. In
 * the first second, while code is cold and requests slow, some per-request sites cross its 85 %
 * threshold in some processes and not in others (node's `_addListener` array of two listeners was
 * one, `--trace-pretenuring-statistics`). An old-space object then keeps the young ones it points
 * to alive until the next full GC, so the process promotes ~0.7–0.9 MB a scavenge at a 50 ms
 * upstream against 0.2–0.5 MB, and runs more full GCs, for the rest of its life: two gateways
 * started alike performed alike only by chance. Without it (bench/node-options-ab.ts, 2026-11-29,
 * seven alternated rounds at 64 connections against the 50 ms upstream): 0–1 full GCs a run
 * instead of 0–5, every process promotes ~0.2 MB a scavenge, CPU and p99 within the VM's noise;
 * saturated, one round in three with it on ran 13 full GCs, and the non-streamed peak reads ~15 MB
 * higher without it (median of seven rounds 352 against 336 MB).
 * V8 reads the flag when it processes the feedback of each scavenge, so it takes effect set here.
 */
export function turnOffAllocationSitePretenuring(): boolean {
  if (nodeWasGiven('allocation-site-pretenuring')) return false;
  setFlagsFromString('--no-allocation-site-pretenuring');
  return true;
}
