import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { nodeWasGiven } from './node-flags.ts';

const MB = 1024 * 1024;

/**
 * How far the old generation may grow past what the last full GC kept before the next one: the
 * kept size itself (V8's factor 2) or this much, whichever is more. Left to itself V8 lets it grow
 * up to 4× (by its speed against the allocation rate), so under load the gateway's ~50 MB of
 * live objects grew to 130–175 MB of heap and the peak RSS swung 295–410 MB from run to run; a
 * plain factor of 2 bounds the peaks, but a gateway keeping ~25 MB (64 connections, a 50 ms
 * upstream) then collects every second: each full GC stops the event loop for ~5–10 ms, and while
 * its marking runs — nearly always, at that rate — every scavenge and every pointer write costs
 * more. At 48 MB of room (bench/node-options-ab.ts, 2026-11-29, three rounds each): 2–4 full GCs
 * in 10 s instead of 4–11 there, 1 instead of 3–7 saturated; CPU and p99 within the VM's noise;
 * the peak at 50 ms ~40 MB higher, the saturated peaks ~0–15 MB. A heap keeping 48 MB or more
 * (1,000 connections, a saturated core) grows by its factor 2 as before.
 */
export const OLD_GENERATION_ROOM = 48 * MB;

/** the largest factor the room may ask for: a heap keeping little still grows by at most 3× */
const MAX_GROWING_PERCENT = 200;

/** the young generation's spaces: what a full GC keeps is the rest */
const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

/** The growing percent that gives a heap keeping `kept` bytes the room above: 100 (V8's ×2) at least. */
export function growingPercentFor(kept: number, room = OLD_GENERATION_ROOM): number {
  if (kept <= 0) return MAX_GROWING_PERCENT;
  return Math.min(MAX_GROWING_PERCENT, Math.max(100, Math.ceil((100 * room) / kept)));
}

export interface OldGenerationRoom {
  /** the growing percent set last (undefined: node was given its own) */
  readonly percent: number | undefined;
}

/**
 * Sets V8's heap growing percent now, and again after every full GC from what it kept: V8 reads
 * the flag each time it sets the next limit, so the next cycle gets the room. Unless node was
 * given a --heap-growing-percent of its own, which then holds.
 */
export function holdOldGenerationRoom(room = OLD_GENERATION_ROOM): OldGenerationRoom {
  if (nodeWasGiven('heap-growing-percent')) return { percent: undefined };
  let current: number | undefined;
  const apply = (percent: number) => {
    if (percent === current) return;
    current = percent;
    setFlagsFromString(`--heap-growing-percent=${percent}`);
  };
  apply(growingPercentFor(oldGenerationSize(), room));
  const observer = new PerformanceObserver((list) => {
    // a gc entry's detail says which collection it was (its type does not declare it)
    const major = list.getEntries().some((entry) => (entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (major) apply(growingPercentFor(oldGenerationSize(), room));
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    get percent() {
      return current;
    },
  };
}

/** the heap outside the young generation, as V8 counts it for its limit */
function oldGenerationSize(): number {
  let size = 0;
  for (const space of getHeapSpaceStatistics()) if (!YOUNG_SPACES.has(space.space_name)) size += space.space_used_size;
  return size;
}
