// The dialects' stream encoders read IR parts: a frame's parts become one OpenAI chunk (gathered
// by choice, each delta's fields in OpenAI's order), and one messages text_delta per frame's text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IrStreamPart } from '../../src/core/ir/stream.ts';
import { OpenAIChatStreamEncoder } from '../../src/dialects/openai/encode-chat-stream.ts';
import { MessagesStreamEncoder } from '../../src/dialects/messages/encode-stream.ts';

const start: IrStreamPart = { type: 'start', id: 'c1', created: 7, model: 'm' };

test('OpenAI: one chunk per frame, parts gathered by choice, a call announced and its arguments in one item', () => {
  const encoder = new OpenAIChatStreamEncoder(true);
  const frame: IrStreamPart[] = [
    start,
    { type: 'role', choice: 0, role: 'assistant' },
    { type: 'text-delta', choice: 0, text: '' },
    { type: 'refusal-delta', choice: 1, text: 'no' },
    { type: 'tool-call-start', choice: 0, index: 0, id: 'call_a', name: 'f' },
    { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{}' },
    { type: 'tool-call-delta', choice: 0, index: 1, argumentsDelta: '{"b"' },
    { type: 'finish', choice: 1, reason: 'content_filter', raw: 'refusal' },
  ];
  assert.equal(
    encoder.frame(frame),
    'data: {"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[' +
      '{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"f","arguments":"{}"}},{"index":1,"function":{"arguments":"{\\"b\\""}}]},"logprobs":null,"finish_reason":null},' +
      '{"index":1,"delta":{"refusal":"no"},"logprobs":null,"finish_reason":"content_filter"}],"usage":null}\n\n',
  );
  assert.equal(encoder.frame([start]), '', 'a frame with no choice in it writes nothing');
  assert.equal(
    encoder.end({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
    'data: {"id":"c1","created":7,"model":"m","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}\n\ndata: [DONE]\n\n',
  );
});

test('messages: a frame\'s text and refusal are one text_delta; other choices and images are not written', () => {
  const encoder = new MessagesStreamEncoder();
  const out = encoder.frame([
    start,
    { type: 'text-delta', choice: 0, text: 'a' },
    { type: 'refusal-delta', choice: 0, text: 'b' },
    { type: 'text-delta', choice: 1, text: 'other' },
    { type: 'image', choice: 0, image: { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } } },
  ]);
  const types = out.trimEnd().split('\n\n').map((block) => JSON.parse(block.split('\n')[1]!.slice(6)) as { type: string; delta?: unknown });
  assert.deepEqual(types.map((e) => e.type), ['message_start', 'content_block_start', 'content_block_delta']);
  assert.deepEqual(types[2]!.delta, { type: 'text_delta', text: 'ab' });
});
