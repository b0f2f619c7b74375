// The balance drops by exactly price × usage, and the usage row says the same, for every
// text operation, streamed or not, with cached prompt tokens priced at the cached rate.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows, usdToNanoExact } from '../helpers/upstreams.ts';

let tg: TestGateway;
/** nano-dollars per token of each model, read from the catalogue (admin API) */
const price: Record<string, { input: number; output: number; cached: number | undefined }> = {};

before(async () => {
  tg = await startTestGateway();
  const models = await tg.admin('GET', '/admin/models');
  assert.equal(models.status, 200);
  for (const m of models.body.data) {
    const p = m.pricing ?? {};
    price[m.id] = {
      input: usdToNanoExact(p.input_per_mtok ?? 0) / 1e6,
      output: usdToNanoExact(p.output_per_mtok ?? 0) / 1e6,
      cached: p.cached_input_per_mtok === undefined ? undefined : usdToNanoExact(p.cached_input_per_mtok) / 1e6,
    };
  }
  // the prices the brief states for the model most tests use
  assert.deepEqual(price['gpt-4o-mini'], { input: 150, output: 600, cached: 75 });
});
after(async () => {
  await tg.close();
});

const START_USD = 5;
const START_NANO = START_USD * 1e9;

function client(customer: Customer): OpenAI {
  return new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
}

/** Exact cost in nano-dollars (one rounding, half up) of OpenAI-style usage on `model`. */
function expectedNano(model: string, usage: { prompt: number; completion: number; cached?: number }): number {
  const p = price[model]!;
  const cached = usage.cached ?? 0;
  const exact = (usage.prompt - cached) * p.input + cached * (p.cached ?? p.input) + usage.completion * p.output;
  return Math.round(exact);
}

/** The account's one usage row must show these tokens and this cost; the balance must have dropped by it. */
async function assertCharged(customer: Customer, model: string, usage: { prompt: number; completion: number; cached?: number }, endpoint: string) {
  const cost = expectedNano(model, usage);
  assert.ok(cost > 0);
  assert.equal(START_NANO - tg.balanceNano(customer.accountId), cost, 'balance drop = price × usage');
  const rows = await usageRows(tg, customer.accountId);
  assert.equal(rows.length, 1);
  const row = rows[0];
  assert.equal(row.model, model);
  assert.equal(row.endpoint, endpoint);
  assert.equal(row.status, 200);
  assert.equal(row.prompt_tokens, usage.prompt);
  assert.equal(row.completion_tokens, usage.completion);
  assert.equal(row.cached_tokens, usage.cached ?? 0);
  assert.equal(row.estimated, false);
  assert.equal(usdToNanoExact(row.cost_usd), cost, 'usage row cost = the charge');
  assert.equal(row.provider_id, tg.providerId);
  await tg.assertBillingInvariants(customer.accountId);
  const account = await tg.admin('GET', `/admin/accounts/${customer.accountId}`);
  assert.equal(usdToNanoExact(account.body.balance_usd), START_NANO - cost);
}

describe('chat completions', () => {
  test('plain: charged exactly the reported usage', async () => {
    const customer = await tg.customer(START_USD);
    const reply = await client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Price me exactly.' }] });
    const u = reply.usage!;
    assert.ok(u.prompt_tokens > 0 && u.completion_tokens > 0);
    await assertCharged(customer, 'gpt-4o-mini', { prompt: u.prompt_tokens, completion: u.completion_tokens }, '/v1/chat/completions');
  });

  test('on a pricier model the same usage costs that model’s price', async () => {
    const customer = await tg.customer(START_USD);
    const reply = await client(customer).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Price me on gpt-4o.' }] });
    await assertCharged(customer, 'gpt-4o', { prompt: reply.usage!.prompt_tokens, completion: reply.usage!.completion_tokens }, '/v1/chat/completions');
    assert.ok(price['gpt-4o']!.input > price['gpt-4o-mini']!.input);
  });

  test('streamed with include_usage: charged the usage of the last chunk', async () => {
    const customer = await tg.customer(START_USD);
    const stream = await client(customer).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Stream and price me.' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.ok(text.length > 0);
    assert.ok(usage);
    await assertCharged(customer, 'gpt-4o-mini', { prompt: usage.prompt_tokens, completion: usage.completion_tokens }, '/v1/chat/completions');
  });

  test('streamed without include_usage: the client sees no usage, the charge is still the vendor’s exact usage', async () => {
    const prompt = 'Stream silently and price me.';
    // the simulator is deterministic: a plain request with the same prompt tells the usage
    const probe = await tg.customer(START_USD);
    const known = (await client(probe).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] })).usage!;

    const customer = await tg.customer(START_USD);
    const stream = await client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }], stream: true });
    let sawUsage = false;
    for await (const chunk of stream) if (chunk.usage) sawUsage = true;
    assert.equal(sawUsage, false, 'the usage chunk is hidden from a client that did not ask');
    // the gateway asked the upstream for usage on the client's behalf
    const upstreamBody = tg.sim!.requests.at(-1)!.body as { stream_options?: { include_usage?: boolean } };
    assert.equal(upstreamBody.stream_options?.include_usage, true);
    await assertCharged(customer, 'gpt-4o-mini', { prompt: known.prompt_tokens, completion: known.completion_tokens }, '/v1/chat/completions');
  });

  test('cached prompt tokens are billed at the cached rate (plain)', async () => {
    const customer = await tg.customer(START_USD);
    tg.sim!.enqueue({ kind: 'usage', cachedTokens: 12, promptTokens: 40, completionTokens: 9 });
    const reply = await client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Cache me.' }] });
    assert.equal(reply.usage!.prompt_tokens_details?.cached_tokens, 12);
    // 28 × 150 + 12 × 75 + 9 × 600
    assert.equal(expectedNano('gpt-4o-mini', { prompt: 40, completion: 9, cached: 12 }), 4200 + 900 + 5400);
    await assertCharged(customer, 'gpt-4o-mini', { prompt: 40, completion: 9, cached: 12 }, '/v1/chat/completions');
  });

  test('cached prompt tokens are billed at the cached rate (stream, usage hidden from the client)', async () => {
    const messages = [{ role: 'user' as const, content: 'Cache my stream.' }];
    const probe = await tg.customer(START_USD);
    const completion = (await client(probe).chat.completions.create({ model: 'gpt-4o-mini', messages })).usage!.completion_tokens;
    const customer = await tg.customer(START_USD);
    tg.sim!.enqueue({ kind: 'usage', cachedTokens: 1024, promptTokens: 1500 });
    const stream = await client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true });
    for await (const _ of stream) {
      // drain
    }
    await assertCharged(customer, 'gpt-4o-mini', { prompt: 1500, completion, cached: 1024 }, '/v1/chat/completions');
  });

  test('n > 1: every choice is billed (the vendor reports their sum)', async () => {
    const customer = await tg.customer(START_USD);
    const reply = await client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Two please.' }], n: 2 });
    assert.equal(reply.choices.length, 2);
    await assertCharged(customer, 'gpt-4o-mini', { prompt: reply.usage!.prompt_tokens, completion: reply.usage!.completion_tokens }, '/v1/chat/completions');
  });
});

describe('legacy completions', () => {
  test('plain', async () => {
    const customer = await tg.customer(START_USD);
    const reply = await client(customer).completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Complete and price me', max_tokens: 30 });
    const u = reply.usage!;
    await assertCharged(customer, 'gpt-3.5-turbo-instruct', { prompt: u.prompt_tokens, completion: u.completion_tokens }, '/v1/completions');
  });

  test('streamed with include_usage', async () => {
    const customer = await tg.customer(START_USD);
    const stream = await client(customer).completions.create({
      model: 'gpt-3.5-turbo-instruct',
      prompt: 'Stream a completion and price it',
      max_tokens: 40,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    assert.ok(usage);
    await assertCharged(customer, 'gpt-3.5-turbo-instruct', { prompt: usage.prompt_tokens, completion: usage.completion_tokens }, '/v1/completions');
  });
});

describe('embeddings', () => {
  test('input tokens at the embedding price (SDK default base64 encoding)', async () => {
    const customer = await tg.customer(START_USD);
    const reply = await client(customer).embeddings.create({ model: 'text-embedding-3-small', input: ['first text to embed', 'second, longer text to embed and bill'] });
    assert.equal(reply.data.length, 2);
    assert.ok(reply.usage.prompt_tokens > 0);
    await assertCharged(customer, 'text-embedding-3-small', { prompt: reply.usage.prompt_tokens, completion: 0 }, '/v1/embeddings');
  });

  test('another embedding model, float encoding: its own price', async () => {
    const customer = await tg.customer(START_USD);
    const reply = await client(customer).embeddings.create({ model: 'text-embedding-3-large', input: 'x', encoding_format: 'float' });
    await assertCharged(customer, 'text-embedding-3-large', { prompt: reply.usage.prompt_tokens, completion: 0 }, '/v1/embeddings');
  });
});

describe('many requests', () => {
  test('ten mixed requests: balance = credit − Σ row costs, journal = balance', async () => {
    const customer = await tg.customer(START_USD);
    const c = client(customer);
    let expected = 0;
    for (let i = 0; i < 5; i++) {
      const r = await c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `request ${i}` }], max_tokens: 5 + i });
      expected += expectedNano('gpt-4o-mini', { prompt: r.usage!.prompt_tokens, completion: r.usage!.completion_tokens });
      const e = await c.embeddings.create({ model: 'text-embedding-ada-002', input: `embed ${i}` });
      expected += expectedNano('text-embedding-ada-002', { prompt: e.usage.prompt_tokens, completion: 0 });
    }
    assert.equal(START_NANO - tg.balanceNano(customer.accountId), expected);
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 10);
    assert.equal(
      rows.reduce((sum, r) => sum + usdToNanoExact(r.cost_usd), 0),
      expected,
    );
    await tg.assertBillingInvariants(customer.accountId);
  });
});
