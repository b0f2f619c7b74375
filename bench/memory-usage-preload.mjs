// Preload (`node --import ./bench/memory-usage-preload.mjs`) for memory probes: on SIGWINCH the
// process appends one JSON line to $MEMORY_PROBE_FILE (default /tmp/memory-probe-<pid>.jsonl):
// process.memoryUsage() and V8's heap spaces, after an optional full GC (when run with --expose-gc),
// V8's malloc'd memory, and each live worker thread's heap (`workers`: its file, committed, used, malloc'd).
import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const require = createRequire(import.meta.url);
const file = process.env.MEMORY_PROBE_FILE || `/tmp/memory-probe-${process.pid}.jsonl`;

// every Worker made from here on is kept until it exits (the ESM import of node:worker_threads
// sees the subclass once the builtin's exports are synced)
const threads = require('node:worker_threads');
const workers = new Set();
threads.Worker = class TrackedWorker extends threads.Worker {
  constructor(...args) {
    super(...args);
    this.probeName = String(args[0]).split('/').pop();
    workers.add(this);
    this.once('exit', () => workers.delete(this));
  }
};
syncBuiltinESMExports();

process.on('SIGWINCH', async () => {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, size: s.space_size }]));
  const memory = process.memoryUsage();
  const malloced = getHeapStatistics().malloced_memory;
  const heaps = await Promise.all([...workers].map(async (worker) => ({ name: worker.probeName, heap: await worker.getHeapStatistics().catch(() => undefined) })));
  const workerHeaps = heaps.filter((w) => w.heap).map(({ name, heap }) => ({ name, total: heap.total_heap_size, used: heap.used_heap_size, malloced: heap.malloced_memory }));
  appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...memory, spaces, malloced, workers: workerHeaps })}\n`);
});
