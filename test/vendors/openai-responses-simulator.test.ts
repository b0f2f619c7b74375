// The OpenAI-family simulator's Responses API (POST /v1/responses and the stored-response routes),
// with the official `openai` client pointed straight at it — what the SDK parses is the wire the
// gateway's Responses dialect will speak — and with plain fetch for the exact SSE frames.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { startOpenAISimulator, type OpenAISimulator } from '../../simulators/openai/server.ts';

const API_KEY = 'sk-sim-test';

let sim: OpenAISimulator;
before(async () => {
  sim = await startOpenAISimulator({ apiKey: API_KEY, streamChunks: 6 });
});
after(() => sim.close());
beforeEach(() => sim.reset());

const client = (): OpenAI => new OpenAI({ apiKey: API_KEY, baseURL: sim.baseUrl, maxRetries: 0, logLevel: 'off' });

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city', 'unit'], additionalProperties: false },
  strict: true,
};

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The SSE frames of a raw POST /v1/responses: event name and parsed data (or the raw text when not JSON). */
async function rawFrames(body: unknown): Promise<Array<{ event: string; data: unknown }>> {
  const response = await fetch(`${sim.baseUrl}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  let text = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body!) text += decoder.decode(chunk, { stream: true });
  } catch {
    // a cut stream: the frames read before the drop are what the test looks at
  }
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [eventLine = '', dataLine = '', ...rest] = frame.split('\n');
      assert.equal(rest.length, 0, frame);
      assert.match(eventLine, /^event: /);
      assert.match(dataLine, /^data: /);
      const data = dataLine.slice('data: '.length);
      let parsed: unknown = data;
      try {
        parsed = JSON.parse(data);
      } catch {
        // the malformed-event scenario
      }
      return { event: eventLine.slice('event: '.length), data: parsed };
    });
}

describe('Responses API through the official openai SDK', () => {
  test('responses.create: a message item, output_text, usage; stored, listed and deleted', async () => {
    const response = await client().responses.create({ model: 'gpt-4o-mini', input: 'Hi from the SDK', instructions: 'Be brief.' });
    assert.match(response.id, /^resp_[0-9a-f]{48}$/);
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.equal(response.model, 'gpt-4o-mini');
    assert.equal(response.instructions, 'Be brief.');
    assert.equal(response.incomplete_details, null);
    assert.equal(response.output.length, 1);
    const [message] = response.output;
    assert.equal(message?.type, 'message');
    if (message?.type !== 'message') return;
    assert.match(message.id, /^msg_/);
    assert.equal(message.role, 'assistant');
    assert.equal(message.status, 'completed');
    const [part] = message.content;
    assert.equal(part?.type, 'output_text');
    if (part?.type !== 'output_text') return;
    assert.deepEqual(part.annotations, []);
    assert.match(part.text, /^Echo: Hi from the SDK \|/);
    assert.equal(response.output_text, part.text);
    const usage = response.usage!;
    assert.ok(usage.input_tokens > 0 && usage.output_tokens > 0);
    assert.equal(usage.input_tokens_details.cached_tokens, 0);
    assert.equal(usage.output_tokens_details.reasoning_tokens, 0);
    assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);

    const retrieved = await client().responses.retrieve(response.id);
    assert.deepEqual({ ...retrieved, output_text: undefined }, { ...response, output_text: undefined });
    const items = await client().responses.inputItems.list(response.id);
    assert.equal(items.data.length, 1);
    assert.deepEqual(items.data[0], { id: items.data[0]!.id, type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi from the SDK' }] });
    await client().responses.delete(response.id);
    await assert.rejects(client().responses.retrieve(response.id), OpenAI.NotFoundError);
  });

  test('stream: true — the typed events in order, numbered from 0, deltas adding up to the final text', async () => {
    const events = await collect(await client().responses.create({ model: 'gpt-4o', input: [{ role: 'user', content: 'Stream me' }], stream: true }));
    assert.deepEqual(
      events.map((event) => event.sequence_number),
      events.map((_, index) => index),
    );
    const types = [...new Set(events.map((event) => event.type))];
    assert.deepEqual(types, [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const created = events[0]!;
    assert.ok(created.type === 'response.created' && created.response.status === 'in_progress' && created.response.output.length === 0 && created.response.usage === null);
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    assert.ok(deltas.length > 1);
    const completed = events.at(-1)!;
    assert.ok(completed.type === 'response.completed');
    const [message] = completed.response.output;
    assert.ok(message?.type === 'message' && message.content[0]?.type === 'output_text');
    assert.equal(message.content[0].text, deltas.join(''));
    assert.ok((completed.response.usage?.output_tokens ?? 0) > 0);
  });

  test('responses.stream(...).finalResponse() assembles the same response', async () => {
    const stream = client().responses.stream({ model: 'gpt-4o-mini', input: 'Assemble me' });
    const seen: string[] = [];
    stream.on('response.output_text.delta', (event) => seen.push(event.delta));
    const final = await stream.finalResponse();
    assert.equal(final.status, 'completed');
    assert.equal(final.output_text, seen.join(''));
    assert.match(final.output_text, /^Echo: Assemble me/);
  });

  test('a function-call round trip: by previous_response_id and by resending the whole input', async () => {
    const first = await client().responses.create({ model: 'gpt-4o-mini', input: 'Weather in Paris?', tools: [WEATHER_TOOL] });
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.name, 'get_weather');
    assert.match(call.call_id, /^call_/);
    assert.match(call.id ?? '', /^fc_/);
    assert.deepEqual(JSON.parse(call.arguments), { city: 'sample', unit: 'c' });
    assert.equal(first.output_text, '');

    const second = await client().responses.create({
      model: 'gpt-4o-mini',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' }],
      tools: [WEATHER_TOOL],
    });
    assert.equal(second.previous_response_id, first.id);
    assert.match(second.output_text, /^Tool result: \{"temp":21\} \|/);

    const resent = await client().responses.create({
      model: 'gpt-4o-mini',
      store: false,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
      tools: [WEATHER_TOOL],
    });
    assert.match(resent.output_text, /^Tool result: sunny \|/);
    await assert.rejects(client().responses.retrieve(resent.id), OpenAI.NotFoundError);
  });

  test('streamed function calls: argument deltas, then the item done with the whole arguments', async () => {
    const events = await collect(
      await client().responses.create({ model: 'gpt-4o-mini', input: 'Weather in parallel please', tools: [WEATHER_TOOL, { ...WEATHER_TOOL, name: 'get_time' }], stream: true }),
    );
    const added = events.filter((event) => event.type === 'response.output_item.added');
    assert.deepEqual(
      added.map((event) => event.type === 'response.output_item.added' && event.item.type === 'function_call' && event.item.arguments),
      ['', ''],
    );
    const done = events.filter((event) => event.type === 'response.function_call_arguments.done');
    for (const [index, event] of done.entries()) {
      assert.ok(event.type === 'response.function_call_arguments.done');
      const pieces = events.flatMap((e) => (e.type === 'response.function_call_arguments.delta' && e.output_index === index ? [e.delta] : []));
      assert.equal(pieces.join(''), event.arguments);
    }
    const completed = events.at(-1)!;
    assert.ok(completed.type === 'response.completed');
    assert.deepEqual(
      completed.response.output.map((item) => item.type === 'function_call' && item.name),
      ['get_weather', 'get_time'],
    );
  });

  test('text.format json_schema: output_text is JSON of the schema; json_object needs the word json', async () => {
    const response = await client().responses.create({
      model: 'gpt-4o-mini',
      input: 'Give me a person',
      text: { format: { type: 'json_schema', name: 'person', strict: true, schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'], additionalProperties: false } } },
    });
    assert.deepEqual(JSON.parse(response.output_text), { name: 'sample', age: 1 });
    assert.equal(response.text?.format?.type, 'json_schema');
    const json = await client().responses.create({ model: 'gpt-4o-mini', input: 'Answer in JSON', text: { format: { type: 'json_object' } } });
    assert.deepEqual(JSON.parse(json.output_text), { echo: 'Answer in JSON' });
    await assert.rejects(client().responses.create({ model: 'gpt-4o-mini', input: 'no such word', text: { format: { type: 'json_object' } } }), OpenAI.BadRequestError);
  });

  test('a reasoning model: a reasoning item with its summary first, reasoning tokens in usage (streamed too)', async () => {
    const response = await client().responses.create({ model: 'o4-mini', input: 'Think first', reasoning: { effort: 'low', summary: 'auto' } });
    const [reasoning, message] = response.output;
    assert.ok(reasoning?.type === 'reasoning' && message?.type === 'message');
    assert.match(reasoning.id, /^rs_/);
    assert.equal(reasoning.summary.length, 1);
    assert.equal(reasoning.summary[0]?.type, 'summary_text');
    assert.equal(response.usage?.output_tokens_details.reasoning_tokens, 32);
    assert.ok((response.usage?.output_tokens ?? 0) > 32);

    const events = await collect(await client().responses.create({ model: 'o4-mini', input: 'Think first', reasoning: { summary: 'detailed' }, stream: true }));
    const summary = events.flatMap((event) => (event.type === 'response.reasoning_summary_text.delta' ? [event.delta] : []));
    const done = events.find((event) => event.type === 'response.reasoning_summary_text.done');
    assert.ok(done?.type === 'response.reasoning_summary_text.done');
    assert.equal(summary.join(''), done.text);
    const none = await client().responses.create({ model: 'o4-mini', input: 'Think quietly' });
    assert.ok(none.output[0]?.type === 'reasoning' && none.output[0].summary.length === 0);
  });

  test('max_output_tokens cuts the answer: status incomplete, incomplete_details, response.incomplete when streamed', async () => {
    const response = await client().responses.create({ model: 'gpt-4o-mini', input: 'Say a lot [[sim:long=500]]', max_output_tokens: 20 });
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(response.usage?.output_tokens, 20);
    assert.ok(response.output[0]?.type === 'message' && response.output[0].status === 'incomplete');
    const events = await collect(await client().responses.create({ model: 'gpt-4o-mini', input: 'Say a lot [[sim:long=500]]', max_output_tokens: 20, stream: true }));
    const last = events.at(-1)!;
    assert.ok(last.type === 'response.incomplete' && last.response.incomplete_details?.reason === 'max_output_tokens');
    await assert.rejects(client().responses.create({ model: 'gpt-4o-mini', input: 'x', max_output_tokens: 5 }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal(error.param, 'max_output_tokens');
      return true;
    });
  });

  test('usage scenarios: cached tokens reported', async () => {
    const response = await client().responses.create({ model: 'gpt-4o-mini', input: 'Cache me [[sim:cached=128]]' });
    assert.equal(response.usage?.input_tokens_details.cached_tokens, 128);
  });

  test('errors in the vendor envelope: bad input, unknown previous response, orphan tool output, 429', async () => {
    await assert.rejects(client().responses.create({ model: 'gpt-4o-mini', input: 'x', previous_response_id: 'resp_nope' }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal(error.code, 'previous_response_not_found');
      assert.equal(error.param, 'previous_response_id');
      assert.equal(error.message, "400 Previous response with id 'resp_nope' not found.");
      return true;
    });
    await assert.rejects(client().responses.create({ model: 'gpt-4o-mini', input: [{ type: 'function_call_output', call_id: 'call_x', output: 'y' }] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal(error.message, '400 No tool call found for function call output with call_id call_x.');
      return true;
    });
    await assert.rejects(client().responses.create({ model: '', input: 'x' }), (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'model');
    await assert.rejects(
      client().responses.create({ model: 'gpt-4o-mini', input: [{ role: 'user', content: [{ type: 'input_audio' as 'input_text', text: 'x' }] }] }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'input[0].content[0].type',
    );
    sim.enqueue({ kind: 'status', status: 429, retryAfterSeconds: 0 });
    await assert.rejects(client().responses.create({ model: 'gpt-4o-mini', input: 'x' }), OpenAI.RateLimitError);
  });
});

describe('Responses API wire (raw SSE)', () => {
  test('every frame is `event: <type>` then `data:` with that type; no [DONE]', async () => {
    const frames = await rawFrames({ model: 'gpt-4o-mini', input: 'raw', stream: true });
    for (const frame of frames) assert.equal((frame.data as { type: string }).type, frame.event);
    assert.equal(frames.at(-1)?.event, 'response.completed');
  });

  test('stream-error: the deltas so far, then `error` and the terminal response.failed', async () => {
    sim.enqueue({ kind: 'stream-error', afterChunks: 2 });
    const frames = await rawFrames({ model: 'gpt-4o-mini', input: 'raw', stream: true });
    assert.equal(frames.filter((frame) => frame.event === 'response.output_text.delta').length, 2);
    assert.deepEqual(
      frames.slice(-2).map((frame) => frame.event),
      ['error', 'response.failed'],
    );
    const failed = frames.at(-1)!.data as { sequence_number: number; response: { status: string; error: { code: string } } };
    assert.equal(failed.response.status, 'failed');
    assert.equal(failed.response.error.code, 'server_error');
    assert.equal(failed.sequence_number, frames.length - 1);
  });

  test('cut: the connection drops after N deltas, with no terminal event', async () => {
    sim.enqueue({ kind: 'cut-stream', afterChunks: 3 });
    const frames = await rawFrames({ model: 'gpt-4o-mini', input: 'raw', stream: true });
    assert.equal(frames.filter((frame) => frame.event === 'response.output_text.delta').length, 3);
    assert.equal(frames.at(-1)?.event, 'response.output_text.delta');
  });

  test('malformed: one frame whose data is not JSON, the rest intact', async () => {
    const frames = await rawFrames({ model: 'gpt-4o-mini', input: 'raw [[sim:malformed]]', stream: true });
    assert.equal(frames.filter((frame) => frame.data === '{not json').length, 1);
    assert.equal(frames.at(-1)?.event, 'response.completed');
  });

  test('input_items page newest first with after and limit', async () => {
    const response = await client().responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'developer', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'user', content: [{ type: 'input_text', text: 'three' }] },
      ],
    });
    const first = await client().responses.inputItems.list(response.id, { limit: 2 });
    assert.deepEqual(
      first.data.map((item) => item.type === 'message' && item.content[0]?.type === 'input_text' && item.content[0].text),
      ['three', 'two'],
    );
    assert.equal(first.has_more, true);
    const rest = await client().responses.inputItems.list(response.id, { limit: 2, after: first.data.at(-1)!.id });
    assert.equal(rest.data.length, 1);
    assert.equal(rest.has_more, false);
  });
});
