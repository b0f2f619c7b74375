import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packToolCallId, unpackToolCallId } from '../../src/vendors/_kit/tool-call-id.ts';

test('state packed into an id comes back whole; the id stays within [A-Za-z0-9_-]', () => {
  const state = { signature: 'c2lnbmF0dXJl/+==', thinking: [{ type: 'thinking', thinking: 'héllo 世界 🙂'.repeat(50), signature: 'x' }] };
  const packed = packToolCallId('toolu_01ABC', state);
  assert.match(packed, /^mgx_[A-Za-z0-9_-]+$/);
  assert.deepEqual(unpackToolCallId(packed), { id: 'toolu_01ABC', state });
});

test('ordinary ids and ids that only look packed pass through untouched', () => {
  assert.deepEqual(unpackToolCallId('call_abc'), { id: 'call_abc', state: null });
  assert.deepEqual(unpackToolCallId('mgx_not-really'), { id: 'mgx_not-really', state: null });
});
