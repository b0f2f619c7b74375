// IR → Anthropic request (exact upstream bodies), Anthropic answers → IR, and the settings the
// family refuses or drops.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IrChatRequest } from '../../src/core/ir/chat.ts';
import type { ChatCall, TargetInfo } from '../../src/core/contracts/vendor-codec.ts';
import { convertRequest } from '../../src/vendors/anthropic/convert-request.ts';
import { convertResponse } from '../../src/vendors/anthropic/convert-response.ts';
import { usageToIr } from '../../src/vendors/anthropic/map-usage.ts';
import { unpackThinking } from '../../src/vendors/anthropic/thinking-state.ts';

const target: TargetInfo = { providerId: 'p', upstreamModel: 'claude-upstream', publicModel: 'claude-public' };
const call = (body: Partial<IrChatRequest>, extra: Partial<ChatCall> = {}): ChatCall => ({
  body: { model: 'claude-public', messages: [{ role: 'user', content: 'hi' }], ...body },
  stream: false,
  clientWantsUsage: false,
  maxOutputTokens: 4096,
  created: 1,
  ...extra,
});

describe('IR → Anthropic request', () => {
  test('a full conversation becomes the exact messages body', () => {
    const { body, warnings } = convertRequest(
      call({
        messages: [
          { role: 'system', content: 'Be terse.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather here?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
              { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
              { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
            ],
          },
          { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '' } }] },
          { role: 'tool', tool_call_id: 'toolu_1', content: '21C' },
          { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '12:00' }] },
          { role: 'user', content: 'Thanks!' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }, { type: 'function', function: { name: 'get_time' } }],
        tool_choice: 'required',
        parallel_tool_calls: false,
        stop: 'END',
        temperature: 0.5,
        top_p: 0.9,
        user: 'user-1',
      }),
      target.upstreamModel,
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(body, {
      model: 'claude-upstream',
      max_tokens: 4096,
      system: 'Be terse.\n\nUse metric units.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' }, title: 'a.pdf' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '21C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '12:00' },
            { type: 'text', text: 'Thanks!' },
          ],
        },
      ],
      stop_sequences: ['END'],
      top_p: 0.9,
      temperature: 0.5,
      metadata: { user_id: 'user-1' },
      tools: [
        { name: 'get_weather', description: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
        { name: 'get_time', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
  });

  test('the client max_tokens wins; streams say so', () => {
    const { body } = convertRequest(call({ max_tokens: 77 }, { stream: true, maxOutputTokens: 77 }), 'm');
    assert.equal(body.max_tokens, 77);
    assert.equal(body.stream, true);
  });

  test('narrower ranges and settings the vendor lacks: clamped or dropped, with warnings', () => {
    const { body, warnings } = convertRequest(call({ temperature: 1.6, seed: 3, presence_penalty: 0.5, logit_bias: { '1': 2 }, response_format: { type: 'json_object' } }), 'm');
    assert.equal(body.temperature, 1);
    assert.equal(body.system, 'Respond with a single JSON object and nothing else.');
    assert.deepEqual(warnings, [
      'temperature clamped to 1 (the vendor range is 0-1)',
      'response_format json_object emulated by a system instruction',
      'seed dropped (not supported by this model)',
      'logit_bias dropped (not supported by this model)',
      'presence_penalty dropped (not supported by this model)',
    ]);
  });

  test('json_schema becomes output_config.format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const { body } = convertRequest(call({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } }), 'm');
    assert.deepEqual(body.output_config, { format: { type: 'json_schema', schema } });
  });

  test('reasoning_effort turns thinking on, below max_tokens, and drops sampling changes', () => {
    const { body, warnings } = convertRequest(call({ reasoning_effort: 'high', temperature: 0.2 }, { maxOutputTokens: 8000 }), 'm');
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 7999 });
    assert.equal(body.temperature, undefined);
    assert.deepEqual(warnings, ['temperature dropped (fixed at 1 while thinking)']);
    const forced = convertRequest(call({ reasoning_effort: 'low', tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'required' }), 'm');
    assert.equal(forced.body.thinking, undefined);
    assert.match(forced.warnings[0]!, /reasoning_effort dropped/);
  });

  test('Claude 5 and later: sampling changes dropped, reasoning_effort → adaptive thinking with an effort', () => {
    const { body, warnings } = convertRequest(call({ temperature: 0.2, top_p: 0.5, reasoning_effort: 'minimal' }), 'claude-opus-5');
    assert.equal(body.temperature, undefined);
    assert.equal(body.top_p, undefined);
    assert.deepEqual(body.thinking, { type: 'adaptive' });
    assert.deepEqual(body.output_config, { effort: 'low' });
    assert.deepEqual(warnings, ['top_p dropped (this model samples with its defaults)', 'temperature dropped (this model samples with its defaults)']);
    assert.deepEqual(convertRequest(call({ temperature: 1, reasoning_effort: 'none' }), 'claude-sonnet-5-5').body.thinking, { type: 'disabled' });
    assert.equal(convertRequest(call({ temperature: 1 }), 'claude-sonnet-5').body.temperature, 1);
  });

  for (const [name, body, param] of [
    ['n > 1', { n: 2 }, 'n'],
    ['logprobs', { logprobs: true }, 'logprobs'],
    ['audio output', { modalities: ['text', 'audio'] }, 'modalities'],
    ['custom tools', { tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools[0].type'],
    ['audio input', { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] }, 'messages[0].content[0]'],
    ['a gif in a bmp', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AA' } }] }] }, 'messages[0].content[0].image_url.url'],
    ['unparsable tool arguments', { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{oops' } }] }] }, 'messages[1].tool_calls[0].function.arguments'],
    ['only a system message', { messages: [{ role: 'system', content: 'x' }] }, 'messages'],
  ] as const) {
    test(`refused with a 400 naming the field: ${name}`, () => {
      assert.throws(() => convertRequest(call(body as Partial<IrChatRequest>), 'm'), (error: { status: number; param: string }) => error.status === 400 && error.param === param);
    });
  }
});

describe('Anthropic answer → IR', () => {
  test('text, tool uses, stop reason (raw kept), usage with cache reads and writes', () => {
    const ir = convertResponse(
      {
        id: 'msg_1',
        content: [
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'check.' },
          { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 30, output_tokens: 45, cache_creation_input_tokens: 10, cache_read_input_tokens: 1200 },
      },
      target,
      123,
    );
    assert.deepEqual(ir, {
      id: 'msg_1',
      created: 123,
      model: 'claude-public',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'toolu_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }], refusal: null },
          finish_reason: 'tool_calls',
          raw_finish_reason: 'tool_use',
          stop_sequence: null,
        },
      ],
      usage: { prompt_tokens: 1240, completion_tokens: 45, total_tokens: 1285, prompt_tokens_details: { cached_tokens: 1200, cache_write_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  for (const [raw, unified] of [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
  ] as const) {
    test(`stop_reason ${raw} → ${unified}`, () => {
      const choice = convertResponse({ content: [], stop_reason: raw }, target, 0).choices[0]!;
      assert.equal(choice.finish_reason, unified);
      assert.equal(choice.raw_finish_reason, raw);
    });
  }

  test('thinking blocks ride in the first tool call id and come back in front of the turn', () => {
    const thinking = { type: 'thinking' as const, thinking: 'Let me think…', signature: 'sig==' };
    const ir = convertResponse({ content: [thinking, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }, { type: 'tool_use', id: 'toolu_2', name: 'g', input: {} }], stop_reason: 'tool_use' }, target, 0);
    const [first, second] = ir.choices[0]!.message.tool_calls!;
    assert.match(first!.id, /^mgx_[A-Za-z0-9_-]+$/);
    assert.equal(second!.id, 'toolu_2');
    assert.deepEqual(unpackThinking(first!.id), { id: 'toolu_1', blocks: [thinking] });
    const back = convertRequest(call({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: ir.choices[0]!.message.tool_calls! }, { role: 'tool', tool_call_id: first!.id, content: 'a' }, { role: 'tool', tool_call_id: 'toolu_2', content: 'b' }] }), 'm');
    const assistant = (back.body.messages as Array<{ content: Array<{ type: string; id?: string; tool_use_id?: string }> }>)[1]!;
    assert.deepEqual(assistant.content.map((b) => b.type), ['thinking', 'tool_use', 'tool_use']);
    assert.deepEqual(assistant.content[0], thinking);
    assert.equal(assistant.content[1]!.id, 'toolu_1');
    const results = (back.body.messages as Array<{ content: Array<{ tool_use_id?: string }> }>)[2]!;
    assert.deepEqual(results.content.map((b) => b.tool_use_id), ['toolu_1', 'toolu_2']);
  });

  test('usage: absent → null; cumulative fields', () => {
    assert.equal(usageToIr(undefined), null);
    assert.equal(usageToIr({ input_tokens: 3, output_tokens: 4 })!.prompt_tokens, 3);
  });
});
