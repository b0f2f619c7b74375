import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockHex, newApiKey, newRequestId } from '../../src/core/ids.ts';

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

test("request ids' clock is the millisecond clock in 12 hex digits, as toString(16) writes it", () => {
  const samples = [0, 1, 2 ** 24 - 1, 2 ** 24, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 5, Date.now(), 1_764_550_000_123, 2 ** 48 - 1];
  for (let ms = Date.now() - 5_000; ms < Date.now() + 5_000; ms += 7) samples.push(ms);
  for (const ms of samples) assert.equal(clockHex(ms), ms.toString(16).padStart(12, '0'), String(ms));
  // past 2^48 ms (year 10889) the prefix grows, as before
  assert.equal(clockHex(2 ** 48), (2 ** 48).toString(16));
});

test('API keys are sk- and 48 base62 characters', () => {
  const key = newApiKey();
  assert.match(key, /^sk-[0-9A-Za-z]{48}$/);
  assert.notEqual(newApiKey(), key);
});
