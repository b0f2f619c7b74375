// One public model served by providers of different families: the router picks among them as
// usual, the right codec runs for each, and a failure before the first byte moves the request to
// the next family, in either client dialect, streamed or not. Charged once, by the provider that
// answered.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { assertChargedExactly } from '../helpers/billing.ts';
import { addFamilyProvider, CHAT_MODEL, FAMILIES, type FamilyName, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { usageRows } from '../helpers/upstreams.ts';

const SHARED = 'shared-model';
const CREDIT = 5;
const START = CREDIT * 1e9;
let tg: TestGateway;
const upstreams = {} as Record<FamilyName, FamilyUpstream>;

before(async () => {
  tg = await startTestGateway({ simulator: false });
  // anthropic first, then openai, then gemini
  for (const family of FAMILIES) {
    const priority = { anthropic: 30, openai: 20, gemini: 10 }[family];
    upstreams[family] = await addFamilyProvider(tg, family, { name: `${family}-shared`, models: [SHARED], modelMap: { [SHARED]: CHAT_MODEL[family] }, priority });
  }
  // web search priced: the server-tool request below is one the gateway may forward
  await tg.admin('PUT', `/admin/models/${SHARED}`, { pricing: { input_per_mtok: 1, output_per_mtok: 2, cached_input_per_mtok: 0.1, per_tool_call: { web_search: 0.01 } } });
});
after(async () => {
  await tg.close();
  for (const family of FAMILIES) await upstreams[family].close();
});
beforeEach(() => {
  for (const family of FAMILIES) upstreams[family].reset();
});

const openaiClient = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });
const anthropicClient = (c: Customer) => new Anthropic({ apiKey: c.key, baseURL: tg.origin, maxRetries: 0 });
const served = (family: FamilyName) => upstreams[family].requests.filter((r) => r.method === 'POST').length;

async function assertServedBy(c: Customer, family: FamilyName): Promise<void> {
  const rows = await usageRows(tg, c.accountId);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].provider_id, upstreams[family].providerId);
  await tg.assertBillingInvariants(c.accountId);
}

describe('chat completions', () => {
  test('healthy: the highest priority family serves (translated)', async () => {
    const c = await tg.customer(CREDIT);
    const reply = await openaiClient(c).chat.completions.create({ model: SHARED, messages: [{ role: 'user', content: 'who serves?' }] });
    assert.equal(reply.model, SHARED);
    assert.equal(served('anthropic'), 1);
    await assertChargedExactly(tg, c.accountId, START, SHARED, { prompt: reply.usage!.prompt_tokens, completion: reply.usage!.completion_tokens }, '/v1/chat/completions');
  });

  test('anthropic overloaded (529): served by the openai family, charged once', async () => {
    const c = await tg.customer(CREDIT);
    upstreams.anthropic.enqueue({ kind: 'status', status: 529 });
    const reply = await openaiClient(c).chat.completions.create({ model: SHARED, messages: [{ role: 'user', content: 'fail over' }] });
    assert.match(reply.choices[0]!.message.content!, /Echo: fail over/);
    assert.equal(served('openai'), 1);
    await assertServedBy(c, 'openai');
  });

  test('streamed: anthropic errors in-band before any byte, openai answers 500: gemini streams it', async () => {
    const c = await tg.customer(CREDIT);
    upstreams.anthropic.enqueue({ kind: 'stream-error', afterChunks: 0 });
    upstreams.openai.enqueue({ kind: 'status', status: 500 });
    const stream = await openaiClient(c).chat.completions.create({ model: SHARED, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream over' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.match(text, /^Echo: stream over/);
    assert.deepEqual([served('anthropic'), served('openai'), served('gemini')], [1, 1, 1]);
    await assertServedBy(c, 'gemini');
  });

  test('a setting the first family cannot honour (n = 2): the next family serves', async () => {
    const c = await tg.customer(CREDIT);
    const reply = await openaiClient(c).chat.completions.create({ model: SHARED, n: 2, messages: [{ role: 'user', content: 'two please' }] });
    assert.equal(reply.choices.length, 2);
    assert.equal(served('anthropic'), 0, 'never sent to a family that would drop it');
    await assertServedBy(c, 'openai');
  });
});

describe('messages', () => {
  test('native first; overloaded: bridged to the openai family, the client cannot tell', async () => {
    const c = await tg.customer(CREDIT);
    upstreams.anthropic.enqueue({ kind: 'status', status: 529 });
    const message = await anthropicClient(c).messages.create({ model: SHARED, max_tokens: 64, messages: [{ role: 'user', content: 'bridge me' }] });
    assert.equal(message.type, 'message');
    assert.match((message.content[0] as Anthropic.TextBlock).text, /Echo: bridge me/);
    await assertServedBy(c, 'openai');
  });

  test('a request only the native family can carry: its failure is what the client hears, not the others’ refusal', async () => {
    const c = await tg.customer(CREDIT);
    upstreams.anthropic.enqueue({ kind: 'status', status: 529 });
    const res = await fetch(`${tg.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': c.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: SHARED, max_tokens: 64, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'search' }] }),
    });
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { error: { type: string } }).error.type, 'server_error');
    assert.equal(served('openai') + served('gemini'), 0, 'nothing was sent to families that cannot carry server tools');
    await tg.assertBillingInvariants(c.accountId);
  });

  test('streamed: the native stream fails before its first event; gemini streams the exact sequence', async () => {
    const c = await tg.customer(CREDIT);
    upstreams.anthropic.enqueue({ kind: 'stream-error', afterChunks: 0 });
    upstreams.openai.enqueue({ kind: 'status', status: 503 });
    const final = await anthropicClient(c).messages.stream({ model: SHARED, max_tokens: 256, messages: [{ role: 'user', content: 'stream bridge' }] }).finalMessage();
    assert.match((final.content[0] as Anthropic.TextBlock).text, /^Echo: stream bridge/);
    assert.equal(final.model, SHARED);
    await assertServedBy(c, 'gemini');
  });
});
