// Preload (`node --import ./bench/alloc-sampling-preload.mjs`) for bench/alloc-profile.ts: the
// first SIGWINCH starts V8's sampling heap profiler in this process (every allocation, kept or
// collected, one sample per ~$ALLOC_SAMPLING_BYTES bytes, default 8 KB); the next one stops it and
// writes the profile to $ALLOC_PROFILE_FILE, then a line "alloc-profile written" on stderr.
// ALLOC_LIVE=1: only what is still in the heap when it stops — what outlived the young generation
// (promoted, until a full GC collects it) and what the requests in flight hold. ALLOC_SURVIVED=1:
// what outlived a young-generation collection, whenever it died after (the scavenges' copying and
// promotion work).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
const file = process.env.ALLOC_PROFILE_FILE || `/tmp/alloc-profile-${process.pid}.json`;
let sampling = false;
process.on('SIGWINCH', () => {
  if (!sampling) {
    sampling = true;
    const samplingInterval = Number(process.env.ALLOC_SAMPLING_BYTES || 8192);
    const live = process.env.ALLOC_LIVE === '1';
    const survived = process.env.ALLOC_SURVIVED === '1';
    session.post('HeapProfiler.startSampling', { samplingInterval, includeObjectsCollectedByMajorGC: !live, includeObjectsCollectedByMinorGC: !live && !survived });
    return;
  }
  sampling = false;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) throw error;
    writeFileSync(file, JSON.stringify(result.profile));
    process.stderr.write('alloc-profile written\n');
  });
});
