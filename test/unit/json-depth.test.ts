// The nesting scan that runs before every JSON body is parsed: brackets inside strings (with every
// kind of escaped quote and backslash run) never count, and the answer agrees with the real depth.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonDepthExceeds } from '../../src/core/json-depth.ts';

const exceeds = (text: string, limit: number) => jsonDepthExceeds(Buffer.from(text), limit);

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

test('brackets inside strings do not count, whatever precedes the closing quote', () => {
  for (const inner of ['[[[', '\\"[[[', '\\\\', '\\\\\\"[[[{{{', 'é世界🙂[[', '\\u005b']) {
    const text = `{"a":"${inner}","b":[[1]]}`;
    assert.equal(depthOf(JSON.parse(text)), 3, text);
    assert.equal(exceeds(text, 3), false, text);
    assert.equal(exceeds(text, 2), true, text);
  }
});

test('agrees with the parsed depth on generated documents', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const make = (level: number): unknown => {
    const r = random();
    if (level > 12 || r < 0.25) return ['x"]', '\\', '{[', 3, null][Math.floor(random() * 5)];
    if (r < 0.6) return Array.from({ length: 1 + Math.floor(random() * 3) }, () => make(level + 1));
    return Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => [`k${i}"}`, make(level + 1)]));
  };
  for (let n = 0; n < 500; n++) {
    const value = make(0);
    const text = JSON.stringify(value);
    const depth = depthOf(value);
    assert.equal(exceeds(text, depth), false, text);
    if (depth > 0) assert.equal(exceeds(text, depth - 1), true, text);
  }
});

test('100,000 levels are refused after a scan that stops at the limit', () => {
  assert.equal(exceeds('['.repeat(100_000) + ']'.repeat(100_000), 64), true);
  assert.equal(exceeds('"unterminated [[[[', 1), false);
});
