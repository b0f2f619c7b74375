import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newApiKey, newRequestId } from '../../src/core/ids.ts';

test('request ids are unique and sort in the order they were made (index locality)', async () => {
  const first = Array.from({ length: 2000 }, () => newRequestId());
  // the next millisecond at the earliest
  const started = Date.now();
  while (Date.now() === started) await new Promise((resolve) => setImmediate(resolve));
  const later = newRequestId();
  for (const id of first) assert.match(id, /^req_[0-9a-f]{32}$/);
  assert.equal(new Set(first).size, first.length);
  for (const id of first) assert.ok(id < later, `${id} should sort before ${later}`);
  // the time prefix is the clock: ids made within a millisecond share it, the random part differs
  assert.equal(Number.parseInt(later.slice(4, 16), 16) >= started, true);
});

test('API keys are sk- and 48 base62 characters', () => {
  const key = newApiKey();
  assert.match(key, /^sk-[0-9A-Za-z]{48}$/);
  assert.notEqual(newApiKey(), key);
});
