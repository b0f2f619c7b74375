// Streams that do not end normally: a client that leaves is charged for what reached it; a stream
// the upstream cuts is never completed and never charged; a vendor that reports no usage is billed
// from a local count, and the usage row says so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { SseDecoder } from '../../src/core/sse.ts';
import { readThenAbort } from '../helpers/billing.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider, tapUsage, usageRows, usdToNanoExact, type SimProvider, type UsageTap } from '../helpers/upstreams.ts';

let tg: TestGateway;
let slow: SimProvider;
let tap: UsageTap;

before(async () => {
  // the default simulator serves gpt-4o-mini; a slow one behind a TCP proxy serves gpt-4o alone
  tg = await startTestGateway({ models: ['gpt-4o-mini'] });
  slow = await addSimProvider(tg, { name: 'slow', models: ['gpt-4o'], simulator: { chunkDelayMs: 40, streamChunks: 20 }, viaProxy: true });
  tap = tapUsage(tg.gateway);
});
after(async () => {
  await tg.close();
  await slow.close();
});

const CREDIT_USD = 2;
const CREDIT_NANO = CREDIT_USD * 1e9;
const client = (c: Customer) => new OpenAI({ apiKey: c.key, baseURL: tg.baseURL, maxRetries: 0 });

async function rawStream(c: Customer, body: Record<string, unknown>): Promise<{ status: number; events: string[] }> {
  const res = await fetch(`${tg.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ stream: true, ...body }),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const decoder = new SseDecoder();
  return { status: res.status, events: [...decoder.push(bytes), ...decoder.end()].map((e) => e.data) };
}

describe('client abort mid-stream', () => {
  test('the upstream request is aborted and the customer pays the prompt plus what was delivered', { timeout: 20_000 }, async () => {
    const messages = [{ role: 'user' as const, content: 'Tell me a long story, slowly.' }];
    // the full reply's usage, for the bounds (the simulator is deterministic)
    const probe = await tg.customer(CREDIT_USD);
    const full = (await client(probe).chat.completions.create({ model: 'gpt-4o', messages })).usage!;
    const fullCost = full.prompt_tokens * 2500 + full.completion_tokens * 10_000;
    const promptOnly = full.prompt_tokens * 2500;

    const customer = await tg.customer(CREDIT_USD);
    const closedBefore = slow.proxy!.closedByClient;
    const upstreamClosed = slow.proxy!.nextClientClose();
    const settled = tap.next((row) => row.account_id === customer.accountId);
    const controller = new AbortController();
    const stream = await client(customer).chat.completions.create({ model: 'gpt-4o', messages, stream: true }, { signal: controller.signal });
    const { received, chunks } = await readThenAbort(stream, controller, 4);
    assert.equal(chunks, 4, 'nothing more was read after the abort');
    assert.ok(received.length > 0);

    // the gateway closed its upstream connection (a finished request would keep it alive in the pool)
    await upstreamClosed;
    assert.equal(slow.proxy!.closedByClient, closedBefore + 1);

    const row = await settled;
    assert.equal(row.status, 499);
    assert.equal(row.estimated, 1, 'counted locally: the vendor never sent its usage');
    assert.ok(row.completion_tokens! >= 1, 'the delivered tokens are charged');
    assert.ok(row.completion_tokens! < full.completion_tokens, 'but not the undelivered rest');
    // the local prompt count is within a couple of tokens of the vendor's (role framing)
    assert.ok(Math.abs(row.prompt_tokens! - full.prompt_tokens) <= 2, `${row.prompt_tokens} vs ${full.prompt_tokens}`);

    const charged = CREDIT_NANO - tg.balanceNano(customer.accountId);
    assert.equal(charged, row.prompt_tokens! * 2500 + row.completion_tokens! * 10_000);
    assert.equal(row.cost_nano, charged);
    assert.ok(charged > promptOnly - 2 * 2500, 'more than the prompt alone');
    assert.ok(charged < fullCost, `less than the full reply (${charged} < ${fullCost})`);

    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].estimated, true);
    assert.equal(usdToNanoExact(rows[0].cost_usd), charged);
    await tg.assertBillingInvariants(customer.accountId);
  });
});

describe('upstream cut mid-stream', () => {
  test('raw client: the stream ends with an error event and no [DONE]; nothing is charged', async () => {
    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'cut-stream', afterChunks: 3 });
    const { status, events } = await rawStream(customer, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'cut me' }] });
    assert.equal(status, 200, 'the stream had started: the status was already sent');
    assert.ok(!events.includes('[DONE]'), 'a broken stream is never ended as if complete');
    const contentChunks = events.slice(0, -1).map((d) => JSON.parse(d));
    assert.ok(contentChunks.length >= 3, 'the chunks sent before the cut were relayed');
    assert.ok(contentChunks.every((c) => c.object === 'chat.completion.chunk'));
    const last = JSON.parse(events.at(-1)!);
    assert.equal(last.error.type, 'server_error');
    assert.match(last.error.code, /^upstream_stream_/);

    assert.equal(tg.balanceNano(customer.accountId), CREDIT_NANO, 'not charged');
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 502);
    assert.equal(rows[0].cost_usd, 0);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('official SDK: iterating the stream throws; nothing is charged', async () => {
    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'cut-stream', afterChunks: 3 });
    const stream = await client(customer).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'cut me too' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let chunks = 0;
    await assert.rejects(async () => {
      for await (const _ of stream) chunks++;
    }, OpenAI.APIError);
    assert.ok(chunks >= 3);
    assert.equal(tg.balanceNano(customer.accountId), CREDIT_NANO);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('a malformed event in the middle does not break billing', async () => {
    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'malformed-event' });
    const { events } = await rawStream(customer, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'glitch' }], stream_options: { include_usage: true } });
    const usage = JSON.parse(events.at(-2)!).usage;
    assert.equal(events.at(-1), '[DONE]');
    assert.equal(CREDIT_NANO - tg.balanceNano(customer.accountId), usage.prompt_tokens * 150 + usage.completion_tokens * 600);
    await tg.assertBillingInvariants(customer.accountId);
  });
});

describe('no usage from the vendor', () => {
  const messages = [{ role: 'user' as const, content: 'Count my tokens yourself.' }];

  test('stream: billed from a local count of the prompt and of the delivered text; row estimated', async () => {
    const probe = await tg.customer(CREDIT_USD);
    const known = (await client(probe).chat.completions.create({ model: 'gpt-4o-mini', messages })).usage!;

    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'no-usage' });
    const stream = await client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    const reported: Array<Record<string, unknown>> = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) reported.push(chunk.usage as unknown as Record<string, unknown>);
    }
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    const row = rows[0];
    assert.equal(row.status, 200);
    assert.equal(row.estimated, true);
    assert.equal(row.completion_tokens, countTokens(text), 'the delivered text, tokenized locally');
    assert.equal(row.completion_tokens, known.completion_tokens, 'which matches what the vendor would have reported');
    assert.ok(Math.abs(row.prompt_tokens - known.prompt_tokens) <= 2, `${row.prompt_tokens} vs ${known.prompt_tokens}`);
    const cost = row.prompt_tokens * 150 + row.completion_tokens * 600;
    assert.equal(usdToNanoExact(row.cost_usd), cost);
    assert.equal(CREDIT_NANO - tg.balanceNano(customer.accountId), cost);
    // the client asked for usage: it gets the gateway's count, the one charged, marked estimated (contract §4)
    assert.equal(reported.length, 1);
    assert.equal(reported[0]!.prompt_tokens, row.prompt_tokens);
    assert.equal(reported[0]!.completion_tokens, row.completion_tokens);
    assert.equal(reported[0]!.cost, row.cost_usd);
    assert.equal(reported[0]!.cost_estimated, true);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('plain: billed from a local count of the answer; row estimated', async () => {
    const customer = await tg.customer(CREDIT_USD);
    tg.sim!.enqueue({ kind: 'no-usage' });
    const reply = await client(customer).chat.completions.create({ model: 'gpt-4o-mini', messages });
    assert.equal(reply.usage, undefined);
    const row = (await usageRows(tg, customer.accountId))[0];
    assert.equal(row.estimated, true);
    assert.equal(row.completion_tokens, countTokens(reply.choices[0]!.message.content!));
    assert.ok(row.prompt_tokens > 0);
    assert.equal(CREDIT_NANO - tg.balanceNano(customer.accountId), row.prompt_tokens * 150 + row.completion_tokens * 600);
    await tg.assertBillingInvariants(customer.accountId);
  });
});
