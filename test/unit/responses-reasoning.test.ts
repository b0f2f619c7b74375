// The Responses dialect writes the model's reasoning text (issue 20): reasoning.summary asks for it
// (include_reasoning in the IR); the answer carries it as a reasoning item before the message or
// the function call — one summary_text part, streamed as OpenAI streams one — and a conversation
// rebuilt from stored items drops reasoning (its item and references to it), never an error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredResponses, StoredTurn } from '../../src/core/contracts/stored-responses.ts';
import type { IrCompletion } from '../../src/core/ir/chat.ts';
import type { IrStreamFrame } from '../../src/core/ir/stream.ts';
import { continuesStored, inputItems, priorItems } from '../../src/dialects/responses/conversation.ts';
import { convertRequest } from '../../src/dialects/responses/convert-request.ts';
import { ResponsesStreamEncoder } from '../../src/dialects/responses/encode-stream.ts';
import { encodeResponse } from '../../src/dialects/responses/encode.ts';
import { requestEcho } from '../../src/dialects/responses/response-object.ts';
import { responsesSchema } from '../../src/dialects/responses/schemas.ts';

type Json = Record<string, unknown>;
const usage = { prompt_tokens: 10, completion_tokens: 30, total_tokens: 40, completion_tokens_details: { reasoning_tokens: 12 } };
const echo = requestEcho({ model: 'm', reasoning: { effort: 'high', summary: 'auto' } });

function events(text: string): Array<{ event: string; data: Json }> {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [event, data] = block.split('\n');
      return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as Json };
    });
}

function encodeStream(frames: IrStreamFrame[], withReasoning = true): { list: Array<{ event: string; data: Json }>; final: Json | undefined } {
  let final: Json | undefined;
  const encoder = new ResponsesStreamEncoder(echo, (r) => (final = r), 'resp_gw1', withReasoning);
  let out = '';
  for (const frame of frames) out += encoder.frame(frame);
  out += encoder.end(usage);
  return { list: events(out), final };
}

const start = { type: 'start', id: 'vendor-1', created: 100, model: 'm' } as const;
const think = (text: string) => ({ type: 'reasoning-delta', choice: 0, text }) as const;
const say = (text: string) => ({ type: 'text-delta', choice: 0, text }) as const;

describe('Responses request: reasoning.summary', () => {
  test('auto, concise, detailed ask for the reasoning text (include_reasoning), without a warning; none and no summary do not', () => {
    for (const summary of ['auto', 'concise', 'detailed']) {
      const { ir, warnings } = convertRequest({ model: 'm', reasoning: { effort: 'low', summary } }, [], [{ role: 'user', content: 'x' }]);
      assert.equal(ir.include_reasoning, true, summary);
      assert.deepEqual(warnings, []);
    }
    for (const reasoning of [{ summary: 'none' }, { effort: 'low' }, null, undefined]) {
      const { ir, warnings } = convertRequest({ model: 'm', reasoning }, [], [{ role: 'user', content: 'x' }]);
      assert.equal(ir.include_reasoning, undefined);
      assert.deepEqual(warnings, []);
    }
  });

  test('the schema knows the summary values (another is a 400 from the schema)', () => {
    const summary = responsesSchema.properties.reasoning.properties.summary;
    assert.deepEqual(summary.enum, ['auto', 'concise', 'detailed', 'none', null]);
  });
});

describe('Responses encoders: the reasoning item', () => {
  test('streamed: the reasoning item first, its events in order with item_id, output_index, summary_index and sequence numbers; closed before the message', () => {
    const { list, final } = encodeStream([[start, { type: 'role', choice: 0, role: 'assistant' }, think('Thinking ')], [think(''), think('about it.')], [say('Hel')], [say('lo'), { type: 'finish', choice: 0, reason: 'stop', raw: 'end_turn' }]]);
    assert.deepEqual(list.map((e) => e.event), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    assert.deepEqual(list.map((e) => e.data.sequence_number), list.map((_, i) => i));
    const at = { item_id: 'rs_gw1', output_index: 0, summary_index: 0 };
    const data = list.map((e) => {
      const { sequence_number: _n, ...rest } = e.data;
      return rest;
    });
    assert.deepEqual(data.slice(2, 9), [
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_gw1', type: 'reasoning', summary: [] } },
      { type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } },
      { type: 'response.reasoning_summary_text.delta', ...at, delta: 'Thinking ' },
      { type: 'response.reasoning_summary_text.delta', ...at, delta: 'about it.' },
      { type: 'response.reasoning_summary_text.done', ...at, text: 'Thinking about it.' },
      { type: 'response.reasoning_summary_part.done', ...at, part: { type: 'summary_text', text: 'Thinking about it.' } },
      { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_gw1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking about it.' }] } },
    ]);
    assert.deepEqual(data[9], { type: 'response.output_item.added', output_index: 1, item: { id: 'msg_gw1', type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
    assert.equal(data[11]!.output_index, 1);
    const completed = list.at(-1)!.data.response as Json;
    assert.deepEqual(completed, final, 'the completed response is the one kept');
    // the final object is the non-streamed one for the same answer
    const completion: IrCompletion = { id: 'vendor-1', created: 100, model: 'm', usage, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello', reasoning: 'Thinking about it.' }, finish_reason: 'stop', raw_finish_reason: 'end_turn' }] };
    assert.deepEqual(JSON.parse(encodeResponse(completion, echo, undefined, 'resp_gw1', true)), completed);
  });

  test('non-streamed: the reasoning item first, no status or content (as OpenAI writes it), then the message', () => {
    const completion: IrCompletion = { id: 'v', created: 1, model: 'm', usage, choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', reasoning: 'Because.' }, finish_reason: 'stop', raw_finish_reason: null }] };
    const response = JSON.parse(encodeResponse(completion, echo, undefined, 'resp_a', true)) as { output: Json[]; usage: Json };
    assert.deepEqual(response.output[0], { id: 'rs_a', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Because.' }] });
    assert.equal(response.output[1]!.id, 'msg_a');
    assert.deepEqual(response.usage.output_tokens_details, { reasoning_tokens: 12 });
    const unasked = JSON.parse(encodeResponse(completion, echo, undefined, 'resp_a', false)) as { output: Json[] };
    assert.deepEqual(unasked.output.map((item) => item.type), ['message'], 'no summary asked: no reasoning item');
  });

  test('streamed reasoning then a function call: the reasoning closed before the call opens; the final object equals the non-streamed one', () => {
    const { list, final } = encodeStream([
      [start, think('Need the weather.')],
      [{ type: 'tool-call-start', choice: 0, index: 0, id: 'call_1', name: 'get_weather' }, { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"city":"Paris"}' }],
      [{ type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_use' }],
    ]);
    const types = list.map((e) => e.event);
    assert.ok(types.indexOf('response.reasoning_summary_part.done') < types.lastIndexOf('response.output_item.added'));
    assert.deepEqual(list.filter((e) => e.event === 'response.output_item.added').map((e) => [e.data.output_index, (e.data.item as Json).type]), [[0, 'reasoning'], [1, 'function_call']]);
    const completion: IrCompletion = {
      id: 'vendor-1',
      created: 100,
      model: 'm',
      usage,
      choices: [{ index: 0, message: { role: 'assistant', content: null, reasoning: 'Need the weather.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, finish_reason: 'tool_calls', raw_finish_reason: 'tool_use' }],
    };
    assert.deepEqual(JSON.parse(encodeResponse(completion, echo, undefined, 'resp_gw1', true)), final);
  });

  test('cut by the output cap while reasoning: the part is marked incomplete, the response incomplete', () => {
    const { list } = encodeStream([[start, think('Long thought'), { type: 'finish', choice: 0, reason: 'length', raw: 'max_tokens' }]]);
    const partDone = list.find((e) => e.event === 'response.reasoning_summary_part.done')!;
    assert.equal(partDone.data.status, 'incomplete');
    assert.equal(list.at(-1)!.event, 'response.incomplete');
    assert.deepEqual((list.at(-1)!.data.response as { output: Json[] }).output, [{ id: 'rs_gw1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Long thought' }] }]);
  });

  test('reasoning again after text: a second reasoning item with its own id and index', () => {
    const { list } = encodeStream([[start, think('a'), say('b'), think('c'), say('d')]]);
    const added = list.filter((e) => e.event === 'response.output_item.added').map((e) => [(e.data.item as Json).id, e.data.output_index]);
    assert.deepEqual(added, [['rs_gw1', 0], ['msg_gw1', 1], ['rs_gw1_2', 2], ['msg_gw1_3', 3]]);
    assert.deepEqual(list.map((e) => e.data.sequence_number), list.map((_, i) => i));
  });

  test('no summary asked: reasoning parts write nothing', () => {
    const { list } = encodeStream([[start, think('hidden'), say('shown'), { type: 'finish', choice: 0, reason: 'stop', raw: null }]], false);
    assert.ok(!list.some((e) => e.event.includes('reasoning')));
    assert.deepEqual((list.at(-1)!.data.response as { output: Json[] }).output.map((item) => item.type), ['message']);
  });
});

describe('Responses conversation: stored reasoning is dropped', () => {
  const turn: StoredTurn = {
    id: 'resp_t1',
    model: 'm',
    createdAt: 1_000,
    status: 'completed',
    previousResponseId: null,
    instructions: null,
    input: [{ id: 'msg_t1_in0', type: 'message', role: 'user', content: 'Think.' }],
    output: [
      { id: 'rs_t1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking.' }] },
      { id: 'msg_t1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] },
    ],
    usage: null,
  };
  const stored = { found: new Map([['resp_t1', turn]]), save: () => {} } as unknown as StoredResponses;

  test('previous_response_id: the stored reasoning item is not sent on', () => {
    const body = { model: 'm', previous_response_id: 'resp_t1', input: 'Next.' };
    const { ir } = convertRequest(body, priorItems(body, stored), inputItems(body, stored));
    assert.deepEqual(ir.messages, [
      { role: 'user', content: 'Think.' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Next.' },
    ]);
  });

  test('item references to rs_ items (the AI SDK sends them for a stored answer) are dropped, even unknown ones; the msg_ one is resolved', () => {
    const body = { model: 'm', input: [{ role: 'user', content: 'Think.' }, { type: 'item_reference', id: 'rs_t1' }, { type: 'item_reference', id: 'msg_t1' }, { type: 'item_reference', id: 'rs_unknown' }, { role: 'user', content: 'Next.' }] };
    assert.equal(continuesStored(body), true, 'goes through the IR, never the fast path');
    const { ir } = convertRequest(body, [], inputItems(body, stored));
    assert.deepEqual(ir.messages, [
      { role: 'user', content: 'Think.' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Next.' },
    ]);
  });
});
