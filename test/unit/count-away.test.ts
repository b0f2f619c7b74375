// countAway: a count nobody waits for is made in the tokenizer thread until this thread has the
// o200k tables, inline after. This file runs in its own process: its thread has not counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { o200k, o200kBuilt } from '../../src/core/tokens/o200k.ts';
import { BYTE_BOUND_CHARS, countTextTokens, type TextCounter } from '../../src/core/tokens/token-counter.ts';
import { countAway, countInThread } from '../../src/pipeline/off-loop-counter.ts';

const texts = ['The tide came in over the flats.', 'héllo 世界 🙂', 'The tide came in over the flats.'];
const measure = (count: TextCounter) => 7 + texts.reduce((sum, text) => sum + count(text), 0);

test('before the tables exist here: counted in the tokenizer thread, the same total, the tables not built', async () => {
  assert.equal(o200kBuilt(), false);
  const counted = countAway(measure);
  assert.ok(counted instanceof Promise, 'not counted inline');
  const inThread = await countInThread(texts);
  assert.equal(await counted, 7 + inThread.reduce((a, b) => a + b, 0));
  assert.equal(o200kBuilt(), false);
});

test('nothing to tokenise, or too much: no thread, no tables', () => {
  assert.equal(countAway((count) => 3 + count('')), 3);
  const huge = 'x'.repeat(BYTE_BOUND_CHARS + 1);
  assert.equal(countAway((count) => count(huge)), BYTE_BOUND_CHARS + 1, 'bounded by its bytes');
  assert.equal(o200kBuilt(), false);
});

test('once the tables exist here: counted inline', () => {
  o200k();
  const counted = countAway(measure);
  assert.equal(typeof counted, 'number');
  assert.equal(counted, measure(countTextTokens));
});
