import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { MAX_STATE_BYTES_PER_REQUEST, packToolCallId, setToolCallIdKey, ToolCallIdReader, unpackToolCallId } from '../../src/vendors/_kit/tool-call-id.ts';

setToolCallIdKey('unit-test-key');
after(() => setToolCallIdKey('unit-test-key'));

/** what a client could make without the key: the unsigned format of before */
const unsigned = (state: Record<string, unknown>) => `mgx_${deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url')}`;

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

test('an id the gateway did not sign is opaque: never inflated, never state', () => {
  const forged = unsigned({ id: 'toolu_x', signature: 'injected' });
  assert.deepEqual(unpackToolCallId(forged), { id: forged, state: null });
  // a genuine payload under a forged tag, and a genuine id with one character of its payload changed
  const genuine = packToolCallId('toolu_y', { signature: 's' });
  const retagged = `mgx_${'A'.repeat(22)}${genuine.slice(26)}`;
  assert.deepEqual(unpackToolCallId(retagged), { id: retagged, state: null });
  const flipped = genuine.slice(0, -1) + (genuine.endsWith('A') ? 'B' : 'A');
  assert.deepEqual(unpackToolCallId(flipped), { id: flipped, state: null });
});

test('an id signed under another key (another deployment) is opaque', () => {
  setToolCallIdKey('another-key');
  const foreign = packToolCallId('toolu_z', { signature: 's' });
  setToolCallIdKey('unit-test-key');
  assert.deepEqual(unpackToolCallId(foreign), { id: foreign, state: null });
});

test('one request restores at most MAX_STATE_BYTES_PER_REQUEST of state; past it ids are opaque, their vendor id still readable', () => {
  const big = packToolCallId('toolu_big', { thinking: [{ type: 'thinking', thinking: 'a'.repeat(MAX_STATE_BYTES_PER_REQUEST * 0.4), signature: 's' }] });
  const ids = new ToolCallIdReader();
  assert.equal(ids.read(big).id, 'toolu_big');
  assert.equal(ids.read(big).id, 'toolu_big');
  assert.deepEqual(ids.read(big), { id: big, state: null }, 'the third use would pass the budget');
  assert.equal(ids.idOf(big), 'toolu_big');
  // a fresh request has a fresh budget
  assert.equal(new ToolCallIdReader().read(big).id, 'toolu_big');
});
