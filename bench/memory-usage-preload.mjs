// Preload (`node --import ./bench/memory-usage-preload.mjs`) for memory probes: on SIGWINCH the
// process appends one JSON line to $MEMORY_PROBE_FILE (default /tmp/memory-probe-<pid>.jsonl):
// process.memoryUsage() and V8's heap spaces, after an optional full GC (when run with --expose-gc).
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.MEMORY_PROBE_FILE || `/tmp/memory-probe-${process.pid}.jsonl`;
process.on('SIGWINCH', () => {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, size: s.space_size }]));
  appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...process.memoryUsage(), spaces })}\n`);
});
