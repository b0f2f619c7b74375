// The Responses dialect's pieces on their own: the request → IR conversion, the stream encoder's
// event sequence (text, then function calls, incomplete, failed) with the cost spliced into its
// last usage, and the write-behind keeper of stored answers (nothing lost on stop).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredTurn } from '../../src/core/contracts/stored-responses.ts';
import { invalidRequest } from '../../src/core/errors.ts';
import { convertRequest } from '../../src/dialects/responses/convert-request.ts';
import { ResponsesStreamEncoder } from '../../src/dialects/responses/encode-stream.ts';
import { encodeResponse } from '../../src/dialects/responses/encode.ts';
import { requestEcho } from '../../src/dialects/responses/response-object.ts';
import { withCost } from '../../src/pipeline/answer-cost.ts';
import { ResponseKeeper } from '../../src/store/response-keeper.ts';
import type { ResponsesRepository, StoredResponse } from '../../src/store/repositories/responses.ts';

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } };

function events(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [event, data] = block.split('\n');
      return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as Record<string, unknown> };
    });
}

describe('Responses request → IR', () => {
  test('instructions, messages, function calls folded into the assistant turn, outputs as tool messages, settings', () => {
    const body = {
      model: 'm',
      instructions: 'Be brief.',
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }],
      tool_choice: { type: 'function', name: 'f' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      max_output_tokens: 50,
      reasoning: { effort: 'low' },
    };
    const input = [
      { role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'low' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'calling' }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
      { type: 'function_call_output', call_id: 'c1', output: 'done' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
    ];
    const { ir } = convertRequest(body, [], input);
    assert.deepEqual(ir.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA', detail: 'low' } }] },
      { role: 'assistant', content: 'calling', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'done' },
    ]);
    assert.deepEqual(ir.tool_choice, { type: 'function', function: { name: 'f' } });
    assert.deepEqual(ir.response_format, { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } });
    assert.equal(ir.max_completion_tokens, 50);
    assert.equal(ir.reasoning_effort, 'low');
  });

  test('a built-in tool is refused naming tools[i].type', () => {
    assert.throws(() => convertRequest({ model: 'm', tools: [{ type: 'function', name: 'f' }, { type: 'file_search' }] }, [], []), (err) => {
      assert.deepEqual(err, invalidRequest('Built-in tools ("file_search") are not served by this gateway; only function tools are.', 'tools[1].type'));
      return true;
    });
  });
});

describe('Responses stream encoder', () => {
  test('text then a function call: the typed events numbered from 0; the terminal response carries both items and the usage, where the cost goes', () => {
    const encoder = new ResponsesStreamEncoder(requestEcho({ model: 'm' }));
    let out = encoder.frame([{ type: 'start', id: 'chatcmpl-1', created: 100, model: 'm' }, { type: 'role', choice: 0, role: 'assistant' }, { type: 'text-delta', choice: 0, text: 'Hel' }]);
    out += encoder.frame([{ type: 'text-delta', choice: 0, text: 'lo' }]);
    out += encoder.frame([{ type: 'tool-call-start', choice: 0, index: 0, id: 'call_1', name: 'f' }, { type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '{"a":' }]);
    out += encoder.frame([{ type: 'tool-call-delta', choice: 0, index: 0, argumentsDelta: '1}' }, { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' }]);
    out += encoder.end(usage);
    const list = events(withCost(out, { costNano: 1234, estimated: false }));
    assert.deepEqual(list.map((e) => e.event), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    assert.deepEqual(list.map((e) => e.data.sequence_number), list.map((_, i) => i));
    const response = list.at(-1)!.data.response as Record<string, unknown>;
    assert.equal(response.id, 'resp_chatcmpl-1');
    assert.equal(response.status, 'completed');
    assert.deepEqual(response.output, [
      { id: 'msg_chatcmpl-1', type: 'message', status: 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hello' }], role: 'assistant' },
      { id: 'fc_call_1', type: 'function_call', status: 'completed', arguments: '{"a":1}', call_id: 'call_1', name: 'f' },
    ]);
    assert.deepEqual(response.usage, { cost: 0.000001234, input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 15 });
  });

  test('cut by the output cap: response.incomplete with incomplete_details', () => {
    const encoder = new ResponsesStreamEncoder(requestEcho({ model: 'm', max_output_tokens: 16 }));
    let out = encoder.frame([{ type: 'start', id: 'x', created: 1, model: 'm' }, { type: 'text-delta', choice: 0, text: 'cut' }, { type: 'finish', choice: 0, reason: 'length', raw: 'length' }]);
    out += encoder.end(usage);
    const last = events(out).at(-1)!;
    assert.equal(last.event, 'response.incomplete');
    const response = last.data.response as Record<string, unknown>;
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal((response.output as Array<{ status: string }>)[0]!.status, 'incomplete');
  });

  test('a failure mid-stream: error, then response.failed', () => {
    const encoder = new ResponsesStreamEncoder(requestEcho({ model: 'm' }));
    let out = encoder.frame([{ type: 'start', id: 'x', created: 1, model: 'm' }, { type: 'text-delta', choice: 0, text: 'a' }]);
    out += encoder.error(invalidRequest('boom', null, 'server_error'));
    const list = events(out).slice(-2);
    assert.deepEqual(list.map((e) => e.event), ['error', 'response.failed']);
    assert.equal(list[0]!.data.message, 'boom');
    assert.equal((list[1]!.data.response as { status: string }).status, 'failed');
  });

  test('the non-streamed response object; the complete one goes to onFinal', () => {
    let kept: Record<string, unknown> | undefined;
    const body = encodeResponse({ id: 'msg_01', created: 5, model: 'm', usage, choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop', raw_finish_reason: 'end_turn' }] }, requestEcho({ model: 'm', instructions: 'x' }), (r) => (kept = r));
    const response = JSON.parse(body) as Record<string, unknown>;
    assert.equal(response.id, 'resp_msg_01');
    assert.equal(response.instructions, 'x');
    assert.equal((response.output as Array<{ id: string }>)[0]!.id, 'msg_msg_01');
    assert.deepEqual(kept, response);
    assert.ok(Object.keys(response).at(-1) === 'usage', 'usage is the last member');
    const named = JSON.parse(encodeResponse({ id: 'same-every-time', created: 5, model: 'm', usage, choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop', raw_finish_reason: null }] }, requestEcho({ model: 'm' }), undefined, 'resp_gw1')) as { id: string; output: Array<{ id: string }> };
    assert.equal(named.id, 'resp_gw1', 'the gateway names the answer, whatever id the vendor sent');
    assert.equal(named.output[0]!.id, 'msg_gw1');
  });
});

describe('ResponseKeeper', () => {
  const turn = (id: string, previousResponseId: string | null = null): StoredTurn => ({ id, model: 'm', createdAt: 1_000, status: 'completed', previousResponseId, instructions: null, input: [{ id: `msg_${id}_in0`, type: 'message' }], output: [], usage: null });

  function fakeRepo(failFirst = false) {
    const rows = new Map<string, StoredResponse>();
    let failures = failFirst ? 1 : 0;
    const repo = {
      async insertMany(list: readonly StoredResponse[]) {
        if (failures-- > 0) throw new Error('db down');
        for (const row of list) if (!rows.has(row.id)) rows.set(row.id, row);
      },
      async get(accountId: string, id: string) {
        const row = rows.get(id);
        return row?.accountId === accountId ? row : undefined;
      },
    } as unknown as ResponsesRepository;
    return { repo, rows };
  }

  test('stop writes what is pending; a failed batch is kept for the next flush', async () => {
    const { repo, rows } = fakeRepo(true);
    const errors: string[] = [];
    const keeper = new ResponseKeeper(repo, { retentionDays: 1, flushDelayMs: 60_000, onError: (_err, what) => errors.push(what) });
    keeper.save('acct', 'key', turn('resp_a'));
    await keeper.flush();
    assert.equal(rows.size, 0);
    assert.deepEqual(errors, ['storing responses']);
    keeper.save('acct', 'key', turn('resp_b'));
    await keeper.stop();
    assert.deepEqual([...rows.keys()].sort(), ['resp_a', 'resp_b']);
    assert.equal(rows.get('resp_a')!.expiresAt, 1_000 + 86_400_000);
  });

  test('load reads a pending answer at once and walks the chain, within the account', async () => {
    const { repo } = fakeRepo();
    const keeper = new ResponseKeeper(repo, { retentionDays: 1, flushDelayMs: 60_000 });
    keeper.save('acct', 'key', turn('resp_1'));
    keeper.save('acct', 'key', turn('resp_2', 'resp_1'));
    assert.deepEqual([...(await keeper.load('acct', { responses: ['resp_2'], items: [] })).found.keys()], ['resp_2', 'resp_1']);
    assert.equal((await keeper.load('other', { responses: ['resp_2'], items: [] })).found.size, 0);
    await keeper.stop();
  });
});
