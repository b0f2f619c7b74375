// The native messages stream's last event is the answer's end for the client: it must follow the
// charge (relay-sse writes the relay's trailer after settleCall), never precede it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnthropicPassthroughRelay } from '../../src/vendors/anthropic/passthrough-relay.ts';
import { emptyUsage } from '../../src/core/usage.ts';

test('message_stop (after the last message_delta) is held back as the trailer, written after the call is settled', () => {
  const relay = new AnthropicPassthroughRelay({ providerId: 'p', upstreamModel: 'claude-x', publicModel: 'claude-x' });
  const start = relay.onEvent({ event: 'message_start', data: '{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}' });
  assert.match(start, /^event: message_start\n/);
  assert.equal(relay.onEvent({ event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}' }), '', 'the last message_delta carries the final usage: held back too');
  assert.equal(relay.onEvent({ event: 'message_stop', data: '{"type":"message_stop"}' }), '', 'nothing of message_stop goes out with the events');
  const end = relay.end();
  assert.equal(end.complete, true);
  assert.equal(end.usage?.outputTokens, 7);
  assert.equal(end.trailer(emptyUsage()), 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n');
});
