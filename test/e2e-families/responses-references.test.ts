// Stored responses read back as they were answered (issue 20): GET /v1/responses/{id} returns the
// object the create call returned — the request's settings echoed, whichever path served it — and
// an item_reference names any output item of a stored answer: a fast-path answer's (the vendor's
// own item ids) and an IR answer's function calls, continued through the IR by another family.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { addFamilyProvider, CHAT_MODEL, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';

const CREDIT = 5;
const TOOLS: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', description: 'Weather in a city', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } }];

let tg: TestGateway;
let openai: FamilyUpstream;
let gemini: FamilyUpstream;
let anthropic: FamilyUpstream;

before(async () => {
  tg = await startTestGateway({ simulator: false });
  openai = await addFamilyProvider(tg, 'openai', { simulator: { streamChunks: 4 } });
  gemini = await addFamilyProvider(tg, 'gemini', { simulator: { streamChunks: 4 } });
  anthropic = await addFamilyProvider(tg, 'anthropic', { simulator: { streamChunks: 4 } });
});
after(async () => {
  await tg.close();
  for (const upstream of [openai, gemini, anthropic]) await upstream.close();
});

const sdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: `${tg.origin}/v1`, maxRetries: 0 });
/** the openai family served through its Responses fast path while `run` runs */
async function fastPath<T>(run: () => Promise<T>): Promise<T> {
  const on = await tg.admin('PATCH', `/admin/providers/${openai.providerId}`, { settings: { responses_api: true } });
  assert.equal(on.status, 200, JSON.stringify(on.body));
  try {
    openai.reset();
    const result = await run();
    assert.ok(openai.requests.length > 0 && openai.requests.every((r) => r.path === '/v1/responses'), 'served by the fast path');
    return result;
  } finally {
    await tg.admin('PATCH', `/admin/providers/${openai.providerId}`, { settings: {} });
  }
}

/**
 * The response object as the wire carried it: the SDK's conveniences (output_text) left out, and
 * the cost the gateway spliced into usage, settled after the answer was kept (GET reads none).
 */
function onTheWire(response: OpenAI.Responses.Response): unknown {
  const { output_text: _text, ...rest } = response;
  const { cost: _cost, ...usage } = response.usage as unknown as Record<string, unknown>;
  return { ...rest, usage };
}

const SETTINGS = {
  instructions: 'Answer in one word.',
  tools: TOOLS,
  tool_choice: 'none' as const,
  parallel_tool_calls: false,
  temperature: 0.25,
  top_p: 0.5,
  max_output_tokens: 321,
  text: { format: { type: 'json_schema' as const, name: 'answer', strict: true, schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false } } },
  reasoning: { effort: 'low' as const },
  metadata: { ticket: 'T-20', turn: 'two' },
  user: 'user-42',
};

describe('GET /v1/responses/{id}: the object the create call returned', () => {
  for (const [family, path] of [['anthropic', 'IR'], ['gemini', 'IR'], ['openai', 'fast path']] as const) {
    for (const streamed of [false, true]) {
      test(`${family} (${path}), ${streamed ? 'streamed' : 'JSON'}: every setting echoed by the create call is read back`, async () => {
        const c = await tg.customer(CREDIT);
        const client = sdk(c);
        // a request that continues a stored one goes through the IR: the fast path's answers start a conversation
        const run = async () => {
          const first = family === 'openai' ? undefined : await client.responses.create({ model: CHAT_MODEL[family], input: 'My name is Ada.' });
          const body = { model: CHAT_MODEL[family], input: 'What is my name?', ...(first && { previous_response_id: first.id }), ...SETTINGS };
          if (!streamed) return client.responses.create(body);
          let completed: OpenAI.Responses.Response | undefined;
          for await (const event of await client.responses.create({ ...body, stream: true })) if (event.type === 'response.completed') completed = event.response;
          assert.ok(completed);
          return completed;
        };
        const created = family === 'openai' ? await fastPath(run) : await run();
        assert.deepEqual(created.metadata, SETTINGS.metadata, 'the create call echoes the settings');
        const got = await client.responses.retrieve(created.id);
        assert.deepEqual(onTheWire(got), onTheWire(created));
      });
    }
  }
});

describe('item_reference to a stored answer’s items', () => {
  test('fast-path answers (the vendor’s item ids): a message and a function call referenced, continued by anthropic through the IR', async () => {
    const c = await tg.customer(CREDIT);
    const client = sdk(c);
    const [said, asked] = await fastPath(async () => [
      await client.responses.create({ model: CHAT_MODEL.openai, input: 'My name is Ada.' }),
      await client.responses.create({ model: CHAT_MODEL.openai, input: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS }),
    ]);
    const message = said.output.find((item) => item.type === 'message')!;
    const call = asked.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined;
    assert.ok(message && call, JSON.stringify([said.output, asked.output]));
    anthropic.reset();
    const next = await client.responses.create({
      model: CHAT_MODEL.anthropic,
      tools: TOOLS,
      input: [
        { role: 'user', content: 'My name is Ada.' },
        { type: 'item_reference', id: message.id! },
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'item_reference', id: call.id! },
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    assert.equal(next.status, 'completed');
    assert.match(next.output_text, /Tool result: .*sunny/);
    const sent = JSON.stringify(anthropic.requests.at(-1)!.body);
    assert.ok(sent.includes(said.output_text.slice(0, 20)), `the referenced message reached anthropic: ${sent}`);
    assert.ok(sent.includes('get_weather') && sent.includes(call.call_id), `the referenced call reached anthropic: ${sent}`);
    const items = await client.responses.inputItems.list(next.id, { order: 'asc' });
    assert.deepEqual(items.data.map((item) => item.id).slice(1, 2), [message.id], 'kept as the item it names');
  });

  test('an IR answer’s function call, referenced in the next turn', async () => {
    const c = await tg.customer(CREDIT);
    const client = sdk(c);
    const asked = await client.responses.create({ model: CHAT_MODEL.anthropic, input: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS });
    const call = asked.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined;
    assert.ok(call, JSON.stringify(asked.output));
    anthropic.reset();
    const next = await client.responses.create({
      model: CHAT_MODEL.anthropic,
      tools: TOOLS,
      input: [{ role: 'user', content: 'Weather in Paris?' }, { type: 'item_reference', id: call.id! }, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    assert.match(next.output_text, /Tool result: .*sunny/);
    const sent = JSON.stringify(anthropic.requests.at(-1)!.body);
    assert.ok(sent.includes(call.call_id) && sent.includes('get_weather'), sent);
  });

  test('another account’s item, or an unknown one: 400 naming the reference', async () => {
    const c = await tg.customer(CREDIT);
    const other = await tg.customer(CREDIT);
    const said = await fastPath(() => sdk(c).responses.create({ model: CHAT_MODEL.openai, input: 'Mine only.' }));
    const message = said.output.find((item) => item.type === 'message')!;
    for (const [customer, id] of [[other, message.id!], [c, 'fc_nothing']] as const) {
      await assert.rejects(
        sdk(customer).responses.create({ model: CHAT_MODEL.gemini, input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id }] }),
        (err: InstanceType<typeof OpenAI.BadRequestError>) => err.status === 400 && err.param === 'input[1].id',
      );
    }
  });
});
