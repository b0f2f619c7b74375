// The tokenizer thread ends once idle (its tables are ~40–45 MB) and starts again for the next count.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { countTextTokens } from '../../src/core/tokens/token-counter.ts';
import { TokenThread } from '../../src/pipeline/token-thread.ts';

const texts = ['The tide came in over the flats.', 'héllo 世界 🙂'];

test('idle: the thread ends; the next count starts a new one and counts the same', { timeout: 20_000 }, async () => {
  const thread = new TokenThread(20);
  assert.deepEqual(await thread.count(texts), texts.map(countTextTokens));
  const first = thread.worker;
  assert.ok(first, 'a thread while it has just counted');
  const [code] = (await once(first, 'exit')) as [number];
  assert.equal(code, 1, 'terminated');
  assert.equal(thread.worker, undefined);
  assert.deepEqual(await thread.count(texts), texts.map(countTextTokens));
  assert.ok(thread.worker && thread.worker !== first, 'a new thread');
  await once(thread.worker, 'exit');
});

test('a count under way when the idle time is up is answered by the same thread', { timeout: 20_000 }, async () => {
  const thread = new TokenThread(1);
  await thread.count(texts);
  const worker = thread.worker;
  // sent as the idle timer is armed; tens of milliseconds of counting, past its 1 ms
  const long = 'The tide came in over the flats, and the birds rose. '.repeat(4000);
  assert.deepEqual(await thread.count([long]), [countTextTokens(long)]);
  assert.equal(thread.worker, worker, 'not ended while counting');
  await once(worker!, 'exit');
  assert.equal(thread.worker, undefined);
});

test('a thread that ended on its own: the one started after it still ends once idle', { timeout: 20_000 }, async () => {
  // long enough that the second thread answers within the first one's idle time
  const thread = new TokenThread(2_000);
  await thread.count(texts);
  // the first thread dies while its idle timer is armed (a crash, here a terminate)
  await thread.worker!.terminate();
  assert.equal(thread.worker, undefined);
  assert.deepEqual(await thread.count(texts), texts.map(countTextTokens));
  const second = thread.worker!;
  await once(second, 'exit');
  assert.equal(thread.worker, undefined);
});

test("the build's garbage is collected once the tables are built, and its pages given back", { timeout: 20_000 }, async () => {
  const thread = new TokenThread(60_000);
  assert.deepEqual(await thread.count(texts), texts.map(countTextTokens));
  // the answer goes out before the collection, and the heap statistics are read at the thread's
  // next interrupt: a second count is answered once the first message's handler, collection
  // included, has returned
  assert.deepEqual(await thread.count(texts), texts.map(countTextTokens));
  const heap = await thread.worker!.getHeapStatistics();
  const committedMb = heap.total_heap_size / 1048576;
  // ~22 MB committed after the memory-reducing collection; ~45 right after the build, and ~30
  // once V8 has collected on its own (it keeps the pages it freed)
  assert.ok(committedMb < 26, `the thread's heap has ${committedMb.toFixed(1)} MB committed`);
  await thread.worker!.terminate();
});
