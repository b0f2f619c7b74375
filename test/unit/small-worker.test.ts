// startSmallWorker: a worker's own young-generation limit holds although node was started with
// --max-semi-space-size (a process-wide V8 flag that otherwise wins), and the flag is put back
// for the isolates created after; `exposeGc` gives one worker gc() and no one else. Run in a child
// node started as npm start starts the gateway.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { semiSpaceFlag } from '../../src/core/small-worker.ts';

test('the flag is read from node arguments and NODE_OPTIONS', () => {
  assert.equal(semiSpaceFlag(['--max-semi-space-size=8'], ''), '8');
  assert.equal(semiSpaceFlag(['--max-semi-space-size', '16'], ''), '16');
  assert.equal(semiSpaceFlag([], '--enable-source-maps --max_semi_space_size=4'), '4');
  assert.equal(semiSpaceFlag(['--max-old-space-size=512'], ''), undefined);
  assert.equal(semiSpaceFlag([], ''), undefined);
});

// each worker fills its young generation, then reports its size; the main thread does the same last
const child = `
import { once } from 'node:events';
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { startSmallWorker } from ${JSON.stringify(fileURLToPath(new URL('../../src/core/small-worker.ts', import.meta.url)))};
const fill = () => {
  let keep = [];
  for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 50000) keep = []; }
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
};
const body = 'import { parentPort } from "node:worker_threads"; import { getHeapSpaceStatistics } from "node:v8";' +
  'const fill = ' + fill.toString() + '; parentPort.postMessage(fill());';
const url = new URL('data:text/javascript,' + encodeURIComponent(body));
const sizeOf = async (worker) => { const [mb] = await once(worker, 'message'); await worker.terminate(); return mb; };
const limits = { maxYoungGenerationSizeMb: 4 };
const small = await sizeOf(startSmallWorker(url, { resourceLimits: limits }));
const plain = await sizeOf(new Worker(url, { resourceLimits: limits }));
const gcUrl = new URL('data:text/javascript,' + encodeURIComponent('import { parentPort } from "node:worker_threads"; parentPort.postMessage(typeof gc);'));
const collecting = await sizeOf(startSmallWorker(gcUrl, { resourceLimits: limits, exposeGc: true }));
const after = await sizeOf(new Worker(gcUrl));
console.log(JSON.stringify({ small, plain, main: fill(), gc: { collecting, after, main: typeof gc } }));
`;

test('under --max-semi-space-size=8: the small worker gets its 4 MB, a worker made after gets the flag, the event loop keeps its own', () => {
  const out = execFileSync(process.execPath, ['--max-semi-space-size=8', '--input-type=module', '-e', child], { encoding: 'utf8' });
  const sizes = JSON.parse(out) as { small: number; plain: number; main: number };
  assert.equal(sizes.small, 4, 'the worker limit held');
  assert.equal(sizes.plain, 16, 'the flag was put back: a worker created after it gets 2 × 8 MB');
  assert.equal(sizes.main, 16, 'the event loop isolate keeps 2 × 8 MB');
});

test('exposeGc: gc() in that worker alone, not in the event loop nor in a worker made after', () => {
  const out = execFileSync(process.execPath, ['--max-semi-space-size=8', '--input-type=module', '-e', child], { encoding: 'utf8' });
  const { gc } = JSON.parse(out) as { gc: { collecting: string; after: string; main: string } };
  assert.deepEqual(gc, { collecting: 'function', after: 'undefined', main: 'undefined' });
});
