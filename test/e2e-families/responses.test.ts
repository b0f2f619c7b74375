// The Responses dialect (POST /v1/responses) with the real clients — the official openai SDK's
// `responses.create` (plain, streamed, a function-calling round trip) and the Vercel AI SDK's
// default OpenAI provider (generateText, streamText, a tool) — against a model of each family,
// served through the IR; billing exact on every call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { assertChargedExactly } from '../helpers/billing.ts';
import { addFamilyProvider, CHAT_MODEL, FAMILIES, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

let tg: TestGateway;
const upstreams: FamilyUpstream[] = [];
const CREDIT = 5;
const START = CREDIT * 1e9;
const TOOLS: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', description: 'Weather in a city', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } }];

before(async () => {
  tg = await startTestGateway({ simulator: false });
  for (const family of FAMILIES) upstreams.push(await addFamilyProvider(tg, family, { simulator: { streamChunks: 5 } }));
});
after(async () => {
  await tg.close();
  for (const upstream of upstreams) await upstream.close();
});

const sdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1`, maxRetries: 0 });
const usageOf = (u: OpenAI.Responses.ResponseUsage) => ({ prompt: u.input_tokens, completion: u.output_tokens, cached: u.input_tokens_details.cached_tokens });
const textOf = (r: OpenAI.Responses.Response) => r.output_text;

for (const family of FAMILIES) {
  const model = CHAT_MODEL[family];
  describe(`Responses dialect → ${family} (${model})`, () => {
    test('openai SDK responses.create: the response object, usage, billing', async () => {
      const c = await tg.customer(CREDIT);
      const response = await sdk(c).responses.create({ model, input: 'Hello from the Responses API', instructions: 'Be brief.' });
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.match(response.id, /^resp_/);
      assert.match(textOf(response), /Echo: Hello from the Responses API/);
      assert.equal(response.instructions, 'Be brief.');
      assert.ok(response.usage!.input_tokens > 0 && response.usage!.output_tokens > 0);
      assert.equal(response.usage!.total_tokens, response.usage!.input_tokens + response.usage!.output_tokens);
      assert.equal(typeof (response.usage as unknown as { cost: number }).cost, 'number', 'the cost is spliced into usage');
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(response.usage!), '/v1/responses');
    });

    test('openai SDK streamed: the typed events in order, numbered from 0, ending in response.completed', async () => {
      const c = await tg.customer(CREDIT);
      const stream = await sdk(c).responses.create({ model, input: 'Stream from the Responses API', stream: true });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
      const types = [...new Set(events.map((e) => e.type))];
      assert.deepEqual(types, ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
      const text = events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as OpenAI.Responses.ResponseTextDeltaEvent).delta).join('');
      assert.match(text, /^Echo: Stream from the Responses API \|/);
      const done = events.find((e) => e.type === 'response.output_text.done') as OpenAI.Responses.ResponseTextDoneEvent;
      assert.equal(done.text, text);
      const completed = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
      const message = completed.output.find((item) => item.type === 'message') as OpenAI.Responses.ResponseOutputMessage;
      assert.equal((message.content[0] as OpenAI.Responses.ResponseOutputText).text, text);
      assert.equal(typeof (completed.usage as unknown as { cost: number }).cost, 'number');
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(completed.usage!), '/v1/responses');
    });

    test('openai SDK stream().finalResponse() with a function-calling round trip', async () => {
      const c = await tg.customer(CREDIT);
      const first = await sdk(c).responses.stream({ model, input: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS }).finalResponse();
      const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined;
      assert.ok(call, JSON.stringify(first.output));
      assert.equal(call.name, 'get_weather');
      assert.equal(typeof JSON.parse(call.arguments).city, 'string');
      const second = await sdk(c).responses.create({
        model,
        tools: TOOLS,
        input: [{ role: 'user', content: 'Weather in Paris?' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
      });
      assert.match(textOf(second), /Tool result: .*sunny/);
      await tg.assertBillingInvariants(c.accountId);
    });

    test('openai SDK previous_response_id: the conversation rebuilt from the stored chain', async () => {
      const c = await tg.customer(CREDIT);
      const first = await sdk(c).responses.create({ model, input: 'My name is Ada.' });
      const second = await sdk(c).responses.create({ model, input: 'And my city is Paris.', previous_response_id: first.id });
      const upstream = upstreams.find((u) => u.family === family)!;
      upstream.reset();
      const third = await sdk(c).responses.create({ model, input: 'What do you know?', previous_response_id: second.id, stream: true });
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of third) if (event.type === 'response.completed') completed = event.response;
      assert.equal(completed?.previous_response_id, second.id);
      const sent = JSON.stringify(upstream.requests.at(-1)!.body);
      for (const said of ['My name is Ada.', 'And my city is Paris.', 'What do you know?', textOf(first).slice(0, 30), textOf(second).slice(0, 30)]) assert.ok(sent.includes(JSON.stringify(said).slice(1, -1)), `the upstream got ${said}`);
      await tg.assertBillingInvariants(c.accountId);
    });

    test('Vercel AI SDK: generateText, streamText and a tool over two steps', async () => {
      const c = await tg.customer(CREDIT);
      const provider = createOpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1` });
      const generated = await generateText({ model: provider(model), prompt: 'Hello AI SDK', maxRetries: 0 });
      assert.match(generated.text, /Echo: Hello AI SDK \|/);
      assert.equal(generated.finishReason, 'stop');
      assert.ok((generated.usage.inputTokens ?? 0) > 0 && (generated.usage.outputTokens ?? 0) > 0);

      const streamed = streamText({ model: provider(model), prompt: 'Stream for the AI SDK', maxRetries: 0 });
      let text = '';
      for await (const piece of streamed.textStream) text += piece;
      assert.match(text, /^Echo: Stream for the AI SDK \|/);
      assert.equal(await streamed.finishReason, 'stop');

      const weather = tool({
        description: 'Weather in a city',
        inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
        execute: async ({ city }) => `sunny in ${city}`,
      });
      const tooled = await generateText({ model: provider(model), prompt: 'Weather in Paris?', tools: { weather }, stopWhen: isStepCount(2), maxRetries: 0 });
      assert.equal(tooled.steps.length, 2);
      assert.equal(tooled.steps[0]!.toolCalls[0]?.toolName, 'weather');
      assert.match(tooled.text, /Tool result: /);
      await tg.assertBillingInvariants(c.accountId);
    });
  });
}

describe('Responses dialect: reasoning', () => {
  test('reasoning.effort reaches a thinking model; its reasoning tokens are in output_tokens_details and billed as output', async () => {
    const c = await tg.customer(CREDIT);
    const gemini = upstreams.find((u) => u.family === 'gemini')!;
    gemini.reset();
    const response = await sdk(c).responses.create({ model: CHAT_MODEL.gemini, input: 'Think first.', reasoning: { effort: 'high' } });
    assert.equal((gemini.requests.at(-1)!.body as { generationConfig: { thinkingConfig: { thinkingLevel: string } } }).generationConfig.thinkingConfig.thinkingLevel, 'HIGH');
    assert.ok(response.usage!.output_tokens_details.reasoning_tokens > 0);
    assert.ok(response.usage!.output_tokens > response.usage!.output_tokens_details.reasoning_tokens, 'reasoning is counted in the output tokens');
    await assertChargedExactly(tg, c.accountId, START, CHAT_MODEL.gemini, usageOf(response.usage!), '/v1/responses');
  });
});

describe('Responses dialect: refusals in the OpenAI envelope', () => {
  const post = (key: string, body: unknown) => fetch(`${tg.origin}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  test('a built-in tool: 400 naming tools[i].type', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c.key, { model: CHAT_MODEL.openai, input: 'x', tools: [{ type: 'web_search' }] });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { param: string; type: string } };
    assert.equal(body.error.param, 'tools[0].type');
    assert.equal(body.error.type, 'invalid_request_error');
  });

  test('an unknown input item type, an unknown item reference or previous response: 400 naming the field; a wrong type: 400 from the schema', async () => {
    const c = await tg.customer(CREDIT);
    const res = await post(c.key, { model: CHAT_MODEL.openai, input: [{ type: 'computer_call_output', call_id: 'x' }] });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { param: string } }).error.param, 'input[0].type');
    const ref = await post(c.key, { model: CHAT_MODEL.openai, input: [{ type: 'item_reference', id: 'msg_nothing' }] });
    assert.equal(ref.status, 400);
    assert.equal(((await ref.json()) as { error: { param: string } }).error.param, 'input[0].id');
    const previous = await post(c.key, { model: CHAT_MODEL.openai, input: 'x', previous_response_id: 'resp_nothing' });
    assert.equal(previous.status, 400);
    assert.deepEqual(((await previous.json()) as { error: unknown }).error, { message: "Previous response with id 'resp_nothing' not found.", type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found' });
    await tg.assertBillingInvariants(c.accountId);
    const empty = await post(c.key, { model: CHAT_MODEL.openai, input: [] });
    assert.equal(empty.status, 400);
    assert.equal(((await empty.json()) as { error: { param: string } }).error.param, 'input');
    const typed = await post(c.key, { model: CHAT_MODEL.openai, input: 'x', max_output_tokens: 'many' });
    assert.equal(typed.status, 400);
    assert.ok('error' in ((await typed.json()) as object));
  });
});

describe('stored responses: GET, input_items, DELETE; another account reads nothing', () => {
  test('the stored answer, its input items paged, deleted once; another account’s key gets 404', async () => {
    const c = await tg.customer(CREDIT);
    const other = await tg.customer(CREDIT);
    const created = await sdk(c).responses.create({ model: CHAT_MODEL.anthropic, instructions: 'Be brief.', input: [{ role: 'user', content: 'one' }, { role: 'user', content: [{ type: 'input_text', text: 'two' }] }] });
    const got = await sdk(c).responses.retrieve(created.id);
    assert.equal(got.id, created.id);
    assert.equal(got.status, 'completed');
    assert.equal(got.instructions, 'Be brief.');
    assert.deepEqual(got.output, created.output);
    const items = await sdk(c).responses.inputItems.list(created.id, { order: 'asc', limit: 1 });
    assert.equal(items.data.length, 1);
    assert.equal(items.has_more, true);
    assert.deepEqual((items.data[0] as { content: unknown }).content, 'one');
    const all = await sdk(c).responses.inputItems.list(created.id);
    assert.equal(all.data.length, 2, 'newest first by default');
    await assert.rejects(sdk(other).responses.retrieve(created.id), OpenAI.NotFoundError);
    await assert.rejects(sdk(other).responses.delete(created.id), OpenAI.NotFoundError);
    await assert.rejects(sdk(other).responses.inputItems.list(created.id), OpenAI.NotFoundError);
    await assert.rejects(sdk(other).responses.create({ model: CHAT_MODEL.anthropic, input: 'continue', previous_response_id: created.id }), (err: InstanceType<typeof OpenAI.BadRequestError>) => err.status === 400 && err.code === 'previous_response_not_found');
    await sdk(c).responses.delete(created.id);
    await assert.rejects(sdk(c).responses.retrieve(created.id), OpenAI.NotFoundError);
    await assert.rejects(sdk(c).responses.delete(created.id), OpenAI.NotFoundError);
  });

  test('store: false keeps nothing', async () => {
    const c = await tg.customer(CREDIT);
    const created = await sdk(c).responses.create({ model: CHAT_MODEL.gemini, input: 'not kept', store: false });
    assert.equal((created as unknown as { store: boolean }).store, false);
    await assert.rejects(sdk(c).responses.retrieve(created.id), OpenAI.NotFoundError);
  });
});
