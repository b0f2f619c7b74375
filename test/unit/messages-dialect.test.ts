// The messages dialect: requests → IR (for bridged providers), IR → messages answers and the exact
// event sequence.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IrStreamPart } from '../../src/core/ir/stream.ts';
import { upstreamUnavailable } from '../../src/core/errors.ts';
import { convertRequest } from '../../src/dialects/messages/convert-request.ts';
import { encodeMessage } from '../../src/dialects/messages/encode.ts';
import { MessagesStreamEncoder } from '../../src/dialects/messages/encode-stream.ts';

describe('messages request → IR', () => {
  test('system, images, tool uses and results (results first, images after), tools and choices', () => {
    const { ir, warnings } = convertRequest({
      model: 'm',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be terse.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_1', name: 'shot', input: { at: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] }, { type: 'text', text: 'and?' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'boom' }] },
      ],
      tools: [{ name: 'shot', description: 'screenshot', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      stop_sequences: ['END'],
      temperature: 0.3,
      top_k: 5,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      metadata: { user_id: 'u1' },
    });
    assert.deepEqual(ir, {
      model: 'm',
      max_completion_tokens: 100,
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'shot', arguments: '{"at":1}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'see' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }, { type: 'text', text: 'and?' }] },
        { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: boom' },
      ],
      stop: ['END'],
      temperature: 0.3,
      user: 'u1',
      tools: [{ type: 'function', function: { name: 'shot', description: 'screenshot', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      include_reasoning: true,
    });
    assert.deepEqual(warnings, ['top_k dropped (not supported by this model)', 'thinking.budget_tokens dropped (not supported by this model)']);
  });

  test('server tools cannot be bridged: 400 naming the tool', () => {
    assert.throws(() => convertRequest({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }), (e: { status: number; param: string }) => e.status === 400 && e.param === 'tools[0].type');
  });
});

describe('IR → messages', () => {
  test('a completion becomes a message; usage splits the prompt into uncached, read and written', () => {
    const body = JSON.parse(
      encodeMessage({
        id: 'chatcmpl-1',
        created: 0,
        model: 'gpt-x',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, finish_reason: 'tool_calls', raw_finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 10 } },
      }),
    );
    assert.deepEqual(body, {
      id: 'msg_chatcmpl-1',
      type: 'message',
      role: 'assistant',
      model: 'gpt-x',
      content: [{ type: 'text', text: 'Hi' }, { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 7, cache_creation_input_tokens: 10, cache_read_input_tokens: 60 },
    });
  });

  test('frames of parts become the exact event sequence', () => {
    const text = (t: string): IrStreamPart => ({ type: 'text-delta', choice: 0, text: t });
    const args = (index: number, argumentsDelta: string): IrStreamPart => ({ type: 'tool-call-delta', choice: 0, index, argumentsDelta });
    const encoder = new MessagesStreamEncoder();
    let out = '';
    for (const frame of [
      [{ type: 'start', id: 'c1', created: 0, model: 'm' }, { type: 'role', choice: 0, role: 'assistant' }, text('')],
      [text('Let me ')],
      [text('check.')],
      [{ type: 'tool-call-start', choice: 0, index: 0, id: 'call_a', name: 'f' }, args(0, '')],
      [args(0, '{"a":')],
      [args(0, '1}')],
      [{ type: 'tool-call-start', choice: 0, index: 1, id: 'call_b', name: 'g' }, args(1, '{}')],
      [{ type: 'finish', choice: 0, reason: 'tool_calls', raw: null }],
    ] satisfies IrStreamPart[][]) {
      out += encoder.frame(frame);
    }
    out += encoder.end({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    const events = out.trimEnd().split('\n\n').map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      const data = JSON.parse(dataLine!.slice(6)) as Record<string, unknown>;
      assert.equal(eventLine, `event: ${String(data.type)}`);
      return data;
    });
    assert.deepEqual(events, [
      { type: 'message_start', message: { id: 'msg_c1', model: 'm', type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'check.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_a', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_b', name: 'g', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 9, output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
      { type: 'message_stop' },
    ]);
  });

  test('an in-band error is an `event: error` in the messages envelope', () => {
    const text = new MessagesStreamEncoder().error(upstreamUnavailable('gone', 502, 'upstream_stream_error'));
    assert.equal(text, 'event: error\ndata: {"type":"error","error":{"type":"server_error","message":"gone"}}\n\n');
  });
});
