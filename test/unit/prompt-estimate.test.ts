import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeChat } from '../../src/dialects/openai/decode-chat.ts';
import { countChatPromptTokens } from '../../src/core/tokens/token-counter.ts';

// The reservation may use the cheap bound only because it is never below the exact count.
const bodies: Array<Record<string, unknown>> = [
  { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
  { model: 'm', messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'héllo 世界 🙂 '.repeat(50) }] },
  { model: 'm', messages: [{ role: 'user', content: '\u0000\u0001 "quoted" \\ backslash \n newline' }] },
  {
    model: 'm',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }],
  },
  {
    model: 'm',
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    messages: [
      { role: 'user', content: 'weather?', name: 'alice' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '21 °C' },
    ],
  },
];

test('the byte bound of a chat prompt is never below the tokenizer count', () => {
  for (const body of bodies) {
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const decoded = decodeChat(body, 100, undefined, bytes);
    const exact = countChatPromptTokens(body);
    assert.ok(decoded.estimate.inputTokensUpperBound !== undefined);
    assert.ok(decoded.estimate.inputTokensUpperBound >= exact, `${decoded.estimate.inputTokensUpperBound} < ${exact} for ${JSON.stringify(body).slice(0, 60)}`);
    assert.equal(decoded.estimate.inputTokens, exact, 'the lazy count is the tokenizer count');
  }
});

test('without a body size the estimate has no bound and counts exactly', () => {
  const decoded = decodeChat(bodies[1]!, 100);
  assert.equal(decoded.estimate.inputTokensUpperBound, undefined);
  assert.equal(decoded.estimate.inputTokens, countChatPromptTokens(bodies[1]!));
});
