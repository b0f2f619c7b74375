// The official OpenAI client against chat completions for Claude and Gemini models: plain,
// streaming and tools, with each family's state carried through multi-turn tool use (Anthropic
// thinking blocks, Gemini thought signatures, both checked by the simulators as upstream does),
// the settings each family refuses or drops, Gemini embeddings; billing exact on every call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { assertChargedExactly } from '../helpers/billing.ts';
import { addFamilyProvider, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows, usdToNanoExact } from '../helpers/upstreams.ts';

let tg: TestGateway;
let claude: FamilyUpstream;
let gemini: FamilyUpstream;
const CREDIT = 5;
const START = CREDIT * 1e9;
const CLAUDE = 'claude-opus-5';
const OLDER_CLAUDE = 'claude-sonnet-4-6';
const GEMINI = 'gemini-3-pro-preview';
const TOOLS: ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

before(async () => {
  tg = await startTestGateway({ simulator: false });
  claude = await addFamilyProvider(tg, 'anthropic', { models: [CLAUDE, OLDER_CLAUDE] });
  gemini = await addFamilyProvider(tg, 'gemini', { models: [GEMINI, 'gemini-embedding-001'] });
});
after(async () => {
  await tg.close();
  await claude.close();
  await gemini.close();
});

const sdk = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });
const usageOf = (u: OpenAI.CompletionUsage) => ({ prompt: u.prompt_tokens, completion: u.completion_tokens, cached: u.prompt_tokens_details?.cached_tokens ?? 0 });

for (const [family, model] of [['Claude', CLAUDE], ['Gemini', GEMINI]] as const) {
  describe(`OpenAI SDK → ${family}`, () => {
    test('plain', async () => {
      const c = await tg.customer(CREDIT);
      const reply = await sdk(c).chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello, other family' }] });
      assert.match(reply.choices[0]!.message.content!, /Echo: Hello, other family/);
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(reply.usage!), '/v1/chat/completions');
    });

    test('streaming with the stream helper', async () => {
      const c = await tg.customer(CREDIT);
      const stream = sdk(c).chat.completions.stream({ model, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Stream, other family' }] });
      let text = '';
      stream.on('content', (delta) => (text += delta));
      const final = await stream.finalChatCompletion();
      assert.equal(final.choices[0]!.message.content, text);
      assert.equal(final.choices[0]!.finish_reason, 'stop');
      await assertChargedExactly(tg, c.accountId, START, model, usageOf(final.usage!), '/v1/chat/completions');
    });

    test('tools with reasoning on, streamed, over two turns: the vendor state survives', async () => {
      const c = await tg.customer(CREDIT);
      const history: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await sdk(c).chat.completions.stream({ model, reasoning_effort: 'low', max_tokens: 4000, tools: TOOLS, messages: history }).finalChatCompletion();
      const message = first.choices[0]!.message;
      assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
      const call = message.tool_calls![0]!;
      // the simulators refuse the next turn unless the thinking blocks / signature come back intact
      const second = await sdk(c).chat.completions.create({
        model,
        reasoning_effort: 'low',
        max_tokens: 4000,
        tools: TOOLS,
        messages: [...history, message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: '{"temp_c":21}' }],
      });
      assert.match(second.choices[0]!.message.content!, /Tool result/);
      const upstreamTurn = JSON.stringify(family === 'Claude' ? claude.requests.at(-1)!.body : gemini.requests.at(-1)!.body);
      assert.ok(upstreamTurn.includes(family === 'Claude' ? '"type":"thinking"' : '"thoughtSignature"'), 'the vendor state went back upstream');
      assert.ok(!upstreamTurn.includes('mgx_'), 'packed ids never reach the vendor');
      await tg.assertBillingInvariants(c.accountId);
    });
  });
}

describe('a conversation moved between families', () => {
  test("Claude's tool call continued on Gemini 3: the call goes with Google's stand-in signature, not refused", async () => {
    const c = await tg.customer(CREDIT);
    const history: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await sdk(c).chat.completions.create({ model: CLAUDE, tools: TOOLS, messages: history });
    const message = first.choices[0]!.message;
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    const call = message.tool_calls![0]!;
    // Gemini 3 refuses a function call in the current turn without a signature it can accept
    const second = await sdk(c).chat.completions.create({
      model: GEMINI,
      tools: TOOLS,
      messages: [...history, message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: '{"temp_c":21}' }],
    });
    assert.match(second.choices[0]!.message.content!, /Tool result/);
    const sent = gemini.requests.at(-1)!.body as { contents: Array<{ parts: Array<Record<string, unknown>> }> };
    const part = sent.contents.flatMap((content) => content.parts).find((p) => p.functionCall);
    assert.equal(part?.thoughtSignature, 'skip_thought_signature_validator');
    await tg.assertBillingInvariants(c.accountId);
  });
});

describe('settings each family cannot honour', () => {
  test('Claude 4.x: temperature above 1 is clamped, and the header says so', async () => {
    const c = await tg.customer(CREDIT);
    const { data, response } = await sdk(c).chat.completions.create({ model: OLDER_CLAUDE, temperature: 1.5, messages: [{ role: 'user', content: 'hot' }] }).withResponse();
    assert.match(data.choices[0]!.message.content!, /Echo: hot/);
    assert.match(response.headers.get('x-modelgate-warning') ?? '', /temperature clamped to 1/);
    assert.equal((claude.requests.at(-1)!.body as { temperature: number }).temperature, 1);
  });

  test('Claude 5: sampling is the vendor’s own; a temperature is dropped, and the header says so', async () => {
    const c = await tg.customer(CREDIT);
    const { data, response } = await sdk(c).chat.completions.create({ model: CLAUDE, temperature: 0.2, messages: [{ role: 'user', content: 'cool' }] }).withResponse();
    assert.match(data.choices[0]!.message.content!, /Echo: cool/);
    assert.match(response.headers.get('x-modelgate-warning') ?? '', /temperature dropped/);
    assert.equal((claude.requests.at(-1)!.body as { temperature?: number }).temperature, undefined);
  });

  test('Claude: n > 1 is a 400 naming n; Gemini serves n choices', async () => {
    const c = await tg.customer(CREDIT);
    const error = await sdk(c).chat.completions.create({ model: CLAUDE, n: 2, messages: [{ role: 'user', content: 'two' }] }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.param, 'n');
    await tg.assertBillingInvariants(c.accountId);
    const reply = await sdk(c).chat.completions.create({ model: GEMINI, n: 2, messages: [{ role: 'user', content: 'two' }] });
    assert.deepEqual(reply.choices.map((ch) => ch.index), [0, 1]);
    const stream = await sdk(c).chat.completions.create({ model: GEMINI, n: 2, stream: true, messages: [{ role: 'user', content: 'two' }] });
    const texts = ['', ''];
    for await (const chunk of stream) for (const ch of chunk.choices) texts[ch.index] += ch.delta.content ?? '';
    assert.match(texts[0]!, /^Echo: two/);
    assert.match(texts[1]!, /^Echo #2: two/);
  });

  test('the upstream gets the vendor’s headers and key, never the client’s', async () => {
    const c = await tg.customer(CREDIT);
    await sdk(c).chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'headers' }] });
    const sent = claude.requests.at(-1)!;
    assert.equal(sent.headers['x-api-key'], claude.apiKey);
    assert.equal(sent.headers['anthropic-version'], '2023-06-01');
    assert.equal(sent.headers.authorization, undefined);
  });
});

describe('Gemini embeddings in the OpenAI shape', () => {
  test('float and base64 (the SDK default), dimensions mapped; billed on a local count, marked estimated', async () => {
    const c = await tg.customer(CREDIT);
    const floats = await sdk(c).embeddings.create({ model: 'gemini-embedding-001', input: ['alpha', 'beta gamma'], dimensions: 8, encoding_format: 'float' });
    assert.equal(floats.data.length, 2);
    assert.equal(floats.data[0]!.embedding.length, 8);
    const sent = gemini.requests.at(-1)!;
    assert.match(sent.path, /\/models\/gemini-embedding-001:batchEmbedContents$/);
    assert.equal((sent.body as { requests: Array<{ outputDimensionality: number }> }).requests[0]!.outputDimensionality, 8);
    const decoded = await sdk(c).embeddings.create({ model: 'gemini-embedding-001', input: 'alpha', dimensions: 8 });
    assert.equal(decoded.data[0]!.embedding.length, 8);
    assert.ok(Math.abs(decoded.data[0]!.embedding[0]! - floats.data[0]!.embedding[0]!) < 1e-6, 'base64 float32 decodes to the same vector');
    const rows = await usageRows(tg, c.accountId);
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.estimated, true);
      assert.equal(usdToNanoExact(row.cost_usd), row.prompt_tokens * 150);
    }
    await tg.assertBillingInvariants(c.accountId);
  });
});
