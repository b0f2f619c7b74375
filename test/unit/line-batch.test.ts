import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineBatch, type BatchTarget } from '../../src/observability/line-batch.ts';

function recorder() {
  const writes: string[] = [];
  const calls: string[] = [];
  const target: BatchTarget = {
    write: (text) => writes.push(text),
    flush: (callback) => {
      calls.push('flush');
      callback?.(null);
    },
    flushSync: () => calls.push('flushSync'),
  };
  return { writes, calls, target };
}

test('lines wait until the batch holds the minimum, then go out as one write, in order', () => {
  const { writes, target } = recorder();
  const batch = new LineBatch(target, 10);
  batch.write('aaaa\n');
  assert.deepEqual(writes, []);
  batch.write('bbbb\n');
  assert.deepEqual(writes, ['aaaa\nbbbb\n']);
  batch.write('c\n');
  assert.deepEqual(writes, ['aaaa\nbbbb\n']);
});

test('flush and flushSync pass on what waits before flushing the target', () => {
  const { writes, calls, target } = recorder();
  const batch = new LineBatch(target, 1000);
  batch.write('one\n');
  batch.write('two\n');
  let flushed = false;
  batch.flush(() => (flushed = true));
  assert.deepEqual(writes, ['one\ntwo\n']);
  assert.ok(flushed);
  batch.write('three\n');
  batch.flushSync();
  assert.deepEqual(writes, ['one\ntwo\n', 'three\n']);
  assert.deepEqual(calls, ['flush', 'flushSync']);
  batch.flushSync();
  assert.equal(writes.length, 2, 'an empty batch writes nothing');
});
