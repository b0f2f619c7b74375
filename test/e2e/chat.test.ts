// Chat completions end to end: the official client against the real gateway and the OpenAI-family
// simulator. The simulator is also called directly, as the oracle of what the upstream answered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { lastUpstreamBody, MINI, raw, sdk, sseData, tokenCost, upstreamBodies } from './support.ts';

const CHAT = '/v1/chat/completions';
const USD = 1_000_000_000;

const weatherTool: OpenAI.Chat.ChatCompletionFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
  },
};
const timeTool: OpenAI.Chat.ChatCompletionFunctionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' }, hours_ahead: { type: 'integer' } } } },
};

// 1×1 PNG
const PNG_DATA_URL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let tg: TestGateway;
/** the simulator called directly with the upstream key: what the upstream itself answers */
let direct: OpenAI;

before(async () => {
  tg = await startTestGateway();
  direct = new OpenAI({ apiKey: 'sim-upstream-key', baseURL: tg.sim!.baseUrl, maxRetries: 0 });
});
after(async () => {
  await tg.close();
});

const spentBy = (accountId: string) => USD - tg.balanceNano(accountId);

/** Reassembles streamed tool-call fragments the way a client must (protocols.md 1.6). */
function collectToolCalls(chunks: OpenAI.Chat.ChatCompletionChunk[]) {
  const calls: Array<{ id: string; type: string; function: { name: string; arguments: string } }> = [];
  for (const chunk of chunks) {
    for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
      const existing = calls[fragment.index];
      if (!existing) {
        assert.ok(fragment.id && fragment.type && fragment.function?.name !== undefined, 'the first fragment of a call carries id, type and name');
        calls[fragment.index] = { id: fragment.id, type: fragment.type, function: { name: fragment.function.name, arguments: fragment.function.arguments ?? '' } };
      } else {
        assert.equal(fragment.id, undefined, 'later fragments carry only arguments');
        existing.function.arguments += fragment.function?.arguments ?? '';
      }
    }
  }
  return calls;
}

test('a plain chat completion: the upstream gets the body as sent, with its own key, and the customer pays the usage', async () => {
  const customer = await tg.customer(1);
  const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hello there' }] };
  const reply = await sdk(tg, customer.key).chat.completions.create(request);

  assert.equal(reply.object, 'chat.completion');
  assert.equal(reply.model, 'gpt-4o-mini');
  assert.equal(reply.choices.length, 1);
  assert.equal(reply.choices[0]!.message.role, 'assistant');
  assert.match(reply.choices[0]!.message.content ?? '', /^Echo: Hello there \|/);
  assert.equal(reply.choices[0]!.finish_reason, 'stop');
  const usage = reply.usage!;
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);

  // with no cap of its own the request gets the one it was reserved for: the model's whole output
  assert.deepEqual(lastUpstreamBody(tg, CHAT), { ...request, max_completion_tokens: 16_384 });
  const upstream = tg.sim!.requests.at(-1)!;
  assert.equal(upstream.headers.authorization, 'Bearer sim-upstream-key');
  assert.ok(!JSON.stringify(upstream.headers).includes(customer.key), 'the customer key never goes upstream');

  assert.equal(spentBy(customer.accountId), tokenCost(usage.prompt_tokens, usage.completion_tokens, MINI.input, MINI.output));
  await tg.assertBillingInvariants(customer.accountId);
});

test('multi-turn with a system message: every turn reaches the upstream in order and the reply answers the last user turn', async () => {
  const customer = await tg.customer(1);
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'My name is Ada.' },
    { role: 'assistant', content: 'Noted, Ada.' },
    { role: 'user', content: 'What is my name?' },
  ];
  const reply = await sdk(tg, customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages });
  assert.match(reply.choices[0]!.message.content ?? '', /^Echo: What is my name\? \|/);
  assert.deepEqual(lastUpstreamBody(tg, CHAT).messages, messages);

  // the earlier turns are billed as prompt: the single last turn alone costs fewer prompt tokens
  const alone = await sdk(tg, customer.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [messages[3]!] });
  assert.ok(reply.usage!.prompt_tokens > alone.usage!.prompt_tokens);
  const expected = [reply, alone].reduce((sum, r) => sum + tokenCost(r.usage!.prompt_tokens, r.usage!.completion_tokens, MINI.input, MINI.output), 0);
  assert.equal(spentBy(customer.accountId), expected);
});

test('tools: a single call, parallel calls and the tool-result turn keep ids and arguments intact', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);

  const single = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools: [weatherTool, timeTool] };
  const upstreamOne = await direct.chat.completions.create(single);
  const one = await client.chat.completions.create(single);
  assert.equal(one.choices[0]!.finish_reason, 'tool_calls');
  assert.equal(one.choices[0]!.message.content, null);
  const calls = one.choices[0]!.message.tool_calls!;
  assert.equal(calls.length, 1);
  assert.deepEqual(calls, upstreamOne.choices[0]!.message.tool_calls, 'ids and arguments are what the upstream produced');
  assert.deepEqual(lastUpstreamBody(tg, CHAT), { ...single, max_completion_tokens: 16_384 });
  const call = calls[0]!;
  assert.ok(call.type === 'function');
  assert.match(call.id, /^call_[0-9a-f]{24}$/);
  assert.equal(call.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.function.arguments), { city: 'sample', unit: 'celsius' });

  const parallel = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Get the weather and the time in parallel' }], tools: [weatherTool, timeTool] };
  const upstreamTwo = await direct.chat.completions.create(parallel);
  const two = await client.chat.completions.create(parallel);
  const parallelCalls = two.choices[0]!.message.tool_calls!;
  assert.equal(parallelCalls.length, 2);
  assert.deepEqual(parallelCalls, upstreamTwo.choices[0]!.message.tool_calls);
  assert.deepEqual(
    parallelCalls.map((c) => (c.type === 'function' ? c.function.name : c.type)),
    ['get_weather', 'get_time'],
  );
  assert.notEqual(parallelCalls[0]!.id, parallelCalls[1]!.id);

  // close the loop: the assistant turn with both calls, then one tool result per call id
  const followUp: OpenAI.Chat.ChatCompletionMessageParam[] = [
    ...parallel.messages,
    { role: 'assistant', content: null, tool_calls: parallelCalls },
    { role: 'tool', tool_call_id: parallelCalls[0]!.id, content: '{"temp_c":21}' },
    { role: 'tool', tool_call_id: parallelCalls[1]!.id, content: '{"time":"12:00"}' },
  ];
  const done = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: followUp, tools: [weatherTool, timeTool] });
  assert.equal(done.choices[0]!.finish_reason, 'stop');
  assert.match(done.choices[0]!.message.content ?? '', /^Tool result: \{"time":"12:00"\} \|/);
  const sent = lastUpstreamBody(tg, CHAT);
  assert.deepEqual(sent.messages, followUp, 'tool_calls, tool_call_id and contents reach the upstream unchanged');
  await tg.assertBillingInvariants(customer.accountId);
});

test('image parts (data URL and https URL) are accepted, forwarded unchanged and billed as the upstream counts them', async () => {
  const customer = await tg.customer(1);
  const content: OpenAI.Chat.ChatCompletionContentPart[] = [
    { type: 'text', text: 'What is in these images?' },
    { type: 'image_url', image_url: { url: PNG_DATA_URL, detail: 'low' } },
    { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
  ];
  const client = sdk(tg, customer.key);
  const withImages = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
  assert.match(withImages.choices[0]!.message.content ?? '', /^Echo: What is in these images\? \|/);
  assert.deepEqual(lastUpstreamBody(tg, CHAT).messages, [{ role: 'user', content }]);

  const textOnly = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [content[0]!] }] });
  // the simulator counts 85 tokens per image part: both images arrived
  assert.equal(withImages.usage!.prompt_tokens - textOnly.usage!.prompt_tokens, 2 * 85);
  const expected = [withImages, textOnly].reduce((sum, r) => sum + tokenCost(r.usage!.prompt_tokens, r.usage!.completion_tokens, MINI.input, MINI.output), 0);
  assert.equal(spentBy(customer.accountId), expected);
});

test('known fields pass through untouched, unknown top-level ones are dropped and named in a warning; streams only gain include_usage', async () => {
  const customer = await tg.customer(1);
  const body = {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Pass me through', x_message_extension: { keep: [1, 'two'] } }],
    temperature: 0.3,
    seed: 7,
    user: 'end-user-1',
    metadata: { tenant: 't-1' },
    logit_bias: { '50256': -100 },
    service_tier: 'auto',
    reasoning_effort: 'low',
  };
  const unknown = { vendor_extension: { nested: [1, 'two', { three: 3 }], flag: true, nothing: null } };
  const plain = await raw(tg, 'POST', CHAT, { key: customer.key, body: { ...body, ...unknown } });
  assert.equal(plain.status, 200, plain.text);
  assert.match(plain.headers.get('x-modelgate-warning') ?? '', /vendor_extension dropped/);
  assert.deepEqual(lastUpstreamBody(tg, CHAT), { ...body, max_completion_tokens: 16_384 });

  const streamed = await raw(tg, 'POST', CHAT, { key: customer.key, body: { ...body, ...unknown, stream: true, stream_options: { include_obfuscation: false } } });
  assert.equal(streamed.status, 200, streamed.text);
  assert.deepEqual(lastUpstreamBody(tg, CHAT), { ...body, stream: true, stream_options: { include_obfuscation: false, include_usage: true }, max_completion_tokens: 16_384 });
  assert.equal(sseData(streamed.text).at(-1), '[DONE]');
  await tg.assertBillingInvariants(customer.accountId);
});

test('n: 2 returns two choices, both billed', async () => {
  const customer = await tg.customer(1);
  const reply = await sdk(tg, customer.key).chat.completions.create({ model: 'gpt-4o-mini', n: 2, messages: [{ role: 'user', content: 'Two please' }] });
  assert.deepEqual(reply.choices.map((c) => c.index), [0, 1]);
  assert.match(reply.choices[0]!.message.content ?? '', /^Echo: Two please \|/);
  assert.match(reply.choices[1]!.message.content ?? '', /^Echo #2: Two please \|/);
  assert.equal(lastUpstreamBody(tg, CHAT).n, 2);
  const usage = reply.usage!;
  assert.equal(spentBy(customer.accountId), tokenCost(usage.prompt_tokens, usage.completion_tokens, MINI.input, MINI.output));

  // streamed, the two choices interleave; each reassembles to its non-stream text and gets its own finish chunk
  const texts = ['', ''];
  const finishes: Array<string | null> = [null, null];
  const stream = await sdk(tg, customer.key).chat.completions.create({ model: 'gpt-4o-mini', n: 2, stream: true, messages: [{ role: 'user', content: 'Two please' }] });
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      texts[choice.index] += choice.delta.content ?? '';
      if (choice.finish_reason) finishes[choice.index] = choice.finish_reason;
    }
  }
  assert.deepEqual(texts, reply.choices.map((c) => c.message.content));
  assert.deepEqual(finishes, ['stop', 'stop']);
  await tg.assertBillingInvariants(customer.accountId);
});

test('streaming: the stream() helper and create({stream: true}) reassemble the non-stream text with UTF-8 intact', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  // one long multi-byte "word" makes an event far larger than a socket read, so characters straddle reads
  const text = `Start ${'é世界🙂'.repeat(4000)} middle ${'🙂'.repeat(3000)} end ✓`;
  const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Unicode please' }] };

  tg.sim!.enqueue({ kind: 'reply', text });
  const plain = await client.chat.completions.create(request);
  assert.equal(plain.choices[0]!.message.content, text);

  tg.sim!.enqueue({ kind: 'reply', text });
  const helper = client.chat.completions.stream(request);
  const deltas: string[] = [];
  helper.on('content', (delta) => deltas.push(delta));
  const final = await helper.finalChatCompletion();
  assert.ok(deltas.length > 1, 'the text arrived in several deltas');
  assert.equal(deltas.join(''), text);
  assert.equal(final.choices[0]!.message.content, text);
  assert.equal(final.choices[0]!.finish_reason, 'stop');

  // the simulator's own filler text (multi-byte words) through create({stream: true})
  const fillerRequest = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Stream me' }] };
  const expected = (await client.chat.completions.create(fillerRequest)).choices[0]!.message.content!;
  assert.match(expected, /héllo 世界 🙂/);
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of await client.chat.completions.create({ ...fillerRequest, stream: true })) chunks.push(chunk);
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), expected);
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4o-mini'));
  assert.equal(new Set(chunks.map((c) => c.id)).size, 1, 'one id across the stream');
  assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'stop');
  await tg.assertBillingInvariants(customer.accountId);
});

test('streaming tool calls: deltas reassemble to the non-stream calls, through iteration and the helper', async () => {
  const customer = await tg.customer(1);
  const client = sdk(tg, customer.key);
  const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Weather and time, in parallel please' }], tools: [weatherTool, timeTool] };
  const expected = (await client.chat.completions.create(request)).choices[0]!.message.tool_calls!;
  assert.equal(expected.length, 2);

  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) chunks.push(chunk);
  assert.deepEqual(collectToolCalls(chunks), expected);
  assert.ok(chunks.filter((c) => c.choices[0]?.delta.tool_calls).length > expected.length, 'arguments arrived in several fragments');
  assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'tool_calls');

  const final = await client.chat.completions.stream(request).finalChatCompletion();
  assert.deepEqual(
    final.choices[0]!.message.tool_calls!.map((c) => {
      assert.ok(c.type === 'function');
      return { id: c.id, type: c.type, function: { name: c.function.name, arguments: c.function.arguments } };
    }),
    expected,
  );
});

test('stream_options.include_usage: the client gets the usage chunk only when it asked, and is charged exactly either way', async () => {
  const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Count my tokens' }] };
  const withUsage = await tg.customer(1);
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of await sdk(tg, withUsage.key).chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
  const last = chunks.at(-1)!;
  assert.deepEqual(last.choices, []);
  const usage = last.usage!;
  assert.ok(usage.prompt_tokens > 0 && usage.completion_tokens > 0);
  assert.ok(chunks.slice(0, -1).every((c) => c.usage === null), 'the other chunks carry usage: null');
  const cost = tokenCost(usage.prompt_tokens, usage.completion_tokens, MINI.input, MINI.output);
  assert.equal(spentBy(withUsage.accountId), cost);

  // same request without include_usage, read as raw SSE: no usage chunk at all, same charge
  const without = await tg.customer(1);
  const res = await raw(tg, 'POST', CHAT, { key: without.key, body: { ...request, stream: true } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = sseData(res.text);
  assert.equal(events.at(-1), '[DONE]');
  assert.equal(events.filter((e) => e === '[DONE]').length, 1);
  for (const data of events.slice(0, -1)) {
    assert.ok(!data.includes('"choices":[]'), `no usage-only chunk reaches the client: ${data}`);
    assert.equal(JSON.parse(data).usage ?? null, null);
  }
  assert.equal(lastUpstreamBody(tg, CHAT).stream_options.include_usage, true, 'the gateway asked the upstream for usage');
  assert.equal(spentBy(without.accountId), cost);
  await tg.assertBillingInvariants(without.accountId);
});

describe('model_map', () => {
  let mapped: TestGateway;
  before(async () => {
    // the harness's provider serves only an embedding model; "mapped" serves gpt-4o-mini under another name
    mapped = await startTestGateway({ models: ['text-embedding-3-small'] });
    const created = await mapped.admin('POST', '/admin/providers', {
      name: 'mapped',
      type: 'openai',
      base_url: mapped.sim!.baseUrl,
      api_key: 'sim-upstream-key',
      models: ['gpt-4o-mini'],
      model_map: { 'gpt-4o-mini': 'upstream-name' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => {
    await mapped.close();
  });

  test('the upstream receives the mapped name; the client sees the public name, plain and streamed', async () => {
    const customer = await mapped.customer(1);
    const client = sdk(mapped, customer.key);
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Who am I talking to?' }] };

    const plain = await client.chat.completions.create(request);
    assert.equal(lastUpstreamBody(mapped, CHAT).model, 'upstream-name');
    assert.equal(plain.model, 'gpt-4o-mini');
    const usage = plain.usage!;

    const res = await raw(mapped, 'POST', CHAT, { key: customer.key, body: { ...request, stream: true, stream_options: { include_usage: true } } });
    assert.equal(res.status, 200);
    assert.equal(lastUpstreamBody(mapped, CHAT).model, 'upstream-name');
    assert.ok(!res.text.includes('upstream-name'), 'the upstream name never reaches the client');
    const chunks = sseData(res.text).slice(0, -1).map((data) => JSON.parse(data));
    assert.ok(chunks.length > 2);
    assert.ok(chunks.every((c) => c.model === 'gpt-4o-mini'));
    assert.deepEqual(chunks.at(-1).usage, usage, 'the streamed usage equals the plain one');

    assert.deepEqual(upstreamBodies(mapped, CHAT).map((b) => b.model), ['upstream-name', 'upstream-name']);
    assert.equal(USD - mapped.balanceNano(customer.accountId), 2 * tokenCost(usage.prompt_tokens, usage.completion_tokens, MINI.input, MINI.output));
    await mapped.assertBillingInvariants(customer.accountId);
  });
});
