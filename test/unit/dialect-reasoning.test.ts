// The model's reasoning text written by the Google and messages dialects from IR frames: Google's
// thought parts (only when the request set includeThoughts), messages thinking blocks (only when
// the request turned thinking on, unsigned), Google's running usageMetadata in every chunk, and
// the requests that ask for the reasoning (include_reasoning) or send an unsigned block back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IrCompletion, IrUsage } from '../../src/core/ir/chat.ts';
import type { IrStreamPart } from '../../src/core/ir/stream.ts';
import { convertRequest as googleRequest } from '../../src/dialects/google/convert-request.ts';
import { encodeGenerateContent } from '../../src/dialects/google/encode-generate.ts';
import { GoogleStreamEncoder } from '../../src/dialects/google/encode-generate-stream.ts';
import { convertRequest as messagesRequest, showsThinking } from '../../src/dialects/messages/convert-request.ts';
import { dropUnsignedThinking } from '../../src/dialects/messages/decode.ts';
import { encodeMessage } from '../../src/dialects/messages/encode.ts';
import { MessagesStreamEncoder } from '../../src/dialects/messages/encode-stream.ts';

const USAGE: IrUsage = { prompt_tokens: 10, completion_tokens: 9, total_tokens: 19, completion_tokens_details: { reasoning_tokens: 4 } };
const completion = (reasoning?: string): IrCompletion => ({
  id: 'r1',
  created: 0,
  model: 'm',
  usage: USAGE,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Answer.', ...(reasoning !== undefined && { reasoning }) }, finish_reason: 'stop', raw_finish_reason: null }],
});
const think = (text: string): IrStreamPart => ({ type: 'reasoning-delta', choice: 0, text });
const say = (text: string): IrStreamPart => ({ type: 'text-delta', choice: 0, text });
const FRAMES: IrStreamPart[][] = [
  [{ type: 'start', id: 'r2', created: 0, model: 'm' }, { type: 'role', choice: 0, role: 'assistant' }, think('Let me ')],
  [think('see.')],
  [think(' Done.'), say('The ')],
  [say('answer.')],
  [{ type: 'finish', choice: 0, reason: 'stop', raw: null }],
];

describe('Google: includeThoughts', () => {
  test('includeThoughts → include_reasoning; without it, none', () => {
    const ask = (thinkingConfig: unknown) => googleRequest({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig } }, 'm').ir;
    assert.equal(ask({ includeThoughts: true, thinkingLevel: 'LOW' }).include_reasoning, true);
    assert.equal(ask({ includeThoughts: true, thinkingLevel: 'LOW' }).reasoning_effort, 'low');
    assert.equal(ask({ thinkingLevel: 'LOW' }).include_reasoning, undefined);
    assert.equal(ask({ includeThoughts: false }).include_reasoning, undefined);
  });

  test('a completion: the reasoning as a thought part before the answer, only when asked', () => {
    const asked = JSON.parse(encodeGenerateContent(completion('Pondering.'), true));
    assert.deepEqual(asked.candidates[0].content.parts, [{ text: 'Pondering.', thought: true }, { text: 'Answer.' }]);
    assert.deepEqual(asked.usageMetadata, { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 19, thoughtsTokenCount: 4 });
    assert.deepEqual(JSON.parse(encodeGenerateContent(completion('Pondering.'), false)).candidates[0].content.parts, [{ text: 'Answer.' }]);
    assert.deepEqual(JSON.parse(encodeGenerateContent(completion(), true)).candidates[0].content.parts, [{ text: 'Answer.' }]);
  });

  for (const form of ['sse', 'array'] as const) {
    test(`a stream (${form}): thought parts apart from the answer's text, never merged with it; none unless asked`, () => {
      const chunks = (thoughts: boolean) => {
        const encoder = new GoogleStreamEncoder(form, thoughts);
        const text = FRAMES.map((frame) => encoder.frame(frame)).join('') + encoder.end(USAGE);
        return (form === 'sse' ? text.split('\r\n\r\n').filter(Boolean).map((event) => JSON.parse(event.replace(/^data: /, ''))) : JSON.parse(text)) as Array<{ candidates: Array<{ content: { parts: unknown[] } }> }>;
      };
      assert.deepEqual(
        chunks(true).map((chunk) => chunk.candidates[0]!.content.parts),
        [[{ text: 'Let me ', thought: true }], [{ text: 'see.', thought: true }], [{ text: ' Done.', thought: true }, { text: 'The ' }], [{ text: 'answer.' }], [{ text: '' }]],
      );
      assert.deepEqual(
        chunks(false).map((chunk) => chunk.candidates[0]!.content.parts),
        [[{ text: 'The ' }], [{ text: 'answer.' }], [{ text: '' }]],
      );
    });
  }

  test('usageMetadata in every chunk as far as the vendor reported it; the last chunk the final totals', () => {
    const encoder = new GoogleStreamEncoder('sse');
    let running: IrUsage | null = null;
    const reported = () => running;
    const out: string[] = [];
    out.push(encoder.frame([{ type: 'start', id: 'r', created: 0, model: 'm' }, say('a')], reported));
    running = { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 };
    out.push(encoder.frame([say('b')], reported));
    running = { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 };
    out.push(encoder.frame([say('c')], reported));
    out.push(encoder.end(USAGE));
    const usages = out.map((text) => JSON.parse(text.replace(/^data: /, '')).usageMetadata);
    assert.deepEqual(usages, [
      undefined,
      { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
      { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 },
      { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 19, thoughtsTokenCount: 4 },
    ]);
  });

  test('the JSON-array stream names its own Content-Type; the SSE form keeps the stream default', () => {
    assert.equal(new GoogleStreamEncoder('array').contentType, 'application/json; charset=utf-8');
    assert.equal(new GoogleStreamEncoder('sse').contentType, undefined);
  });
});

describe('messages: thinking', () => {
  const base = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] };

  test('thinking on (enabled, adaptive) → include_reasoning; disabled, omitted display or absent: not', () => {
    assert.equal(messagesRequest({ ...base, thinking: { type: 'adaptive' } }).ir.include_reasoning, true);
    assert.deepEqual(messagesRequest({ ...base, thinking: { type: 'adaptive' } }).warnings, []);
    assert.equal(messagesRequest({ ...base, thinking: { type: 'enabled', budget_tokens: 2048 } }).ir.include_reasoning, true);
    assert.equal(messagesRequest({ ...base, thinking: { type: 'disabled' } }).ir.include_reasoning, undefined);
    assert.equal(messagesRequest(base).ir.include_reasoning, undefined);
    assert.equal(showsThinking({ ...base, thinking: { type: 'adaptive', display: 'omitted' } }), false);
    assert.equal(showsThinking({ ...base, thinking: { type: 'adaptive', display: 'summarized' } }), true);
  });

  test('an unsigned thinking block sent back is dropped from the conversation (any family); a signed one is kept for Anthropic', () => {
    const body = {
      ...base,
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'from Gemini', signature: '' }, { type: 'text', text: 'A.' }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'from Claude', signature: 'c2ln' }, { type: 'text', text: 'B.' }] },
        { role: 'user', content: 'more' },
      ],
    };
    dropUnsignedThinking(body);
    assert.deepEqual(body.messages[1], { role: 'assistant', content: [{ type: 'text', text: 'A.' }] });
    assert.equal((body.messages[2]!.content as unknown[]).length, 2);
    assert.deepEqual(messagesRequest(body).ir.messages[1], { role: 'assistant', content: 'A.' });
  });

  test('a completion: a thinking block (unsigned) before the text, only when thinking is on', () => {
    assert.deepEqual(JSON.parse(encodeMessage(completion('Pondering.'), true)).content, [{ type: 'thinking', thinking: 'Pondering.', signature: '' }, { type: 'text', text: 'Answer.' }]);
    assert.deepEqual(JSON.parse(encodeMessage(completion('Pondering.'))).content, [{ type: 'text', text: 'Answer.' }]);
  });

  test('a stream: thinking block opened empty, thinking_deltas, a signature_delta just before its stop, then the text block', () => {
    const events = (thinking: boolean) => {
      const encoder = new MessagesStreamEncoder(thinking);
      const out = FRAMES.map((frame) => encoder.frame(frame)).join('') + encoder.end(USAGE);
      return out.trimEnd().split('\n\n').map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        const data = JSON.parse(dataLine!.slice(6)) as Record<string, unknown>;
        assert.equal(eventLine, `event: ${String(data.type)}`);
        return data;
      });
    };
    assert.deepEqual(events(true).slice(1, -2), [
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'see.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: ' Done.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: '' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'The ' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'answer.' } },
      { type: 'content_block_stop', index: 1 },
    ]);
    assert.deepEqual(
      events(false).slice(1, -2).map((e) => e.type),
      ['content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop'],
    );
  });
});
