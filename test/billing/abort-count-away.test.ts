// A client that leaves is charged its prompt (and what reached it of a stream), counted locally,
// without building the tokenizer's tables on the event loop: in a gateway of plain chats whose
// vendor reports usage, that charge is the first local count there is, and building the o200k
// tables there stopped every request for ~0.2–0.3 s. This file runs in its own process, so its
// event loop has not counted before the first test (the in-process simulator counts its answers'
// usage here: the stream test runs with the tables built, the inline case); the expected counts
// are made in the tokenizer thread.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { o200kBuilt } from '../../src/core/tokens/o200k.ts';
import { countChatPromptTokens, type TextCounter } from '../../src/core/tokens/token-counter.ts';
import { countInThread } from '../../src/pipeline/off-loop-counter.ts';
import { readThenAbort } from '../helpers/billing.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { tapUsage, type UsageTap } from '../helpers/upstreams.ts';

let tg: TestGateway;
let tap: UsageTap;

before(async () => {
  // a slow stream: the client reads a few chunks and leaves long before the end
  tg = await startTestGateway({ models: ['gpt-4o-mini'], simulator: { chunkDelayMs: 40, streamChunks: 20 } });
  tap = tapUsage(tg.gateway);
});
after(() => tg.close());

/** What `measure` counts, each text counted in the tokenizer thread (never on this event loop). */
async function countedInThread(measure: (count: TextCounter) => number): Promise<number> {
  const texts: string[] = [];
  measure((text) => (texts.push(text), 0));
  const counts = await countInThread(texts);
  let i = 0;
  return measure(() => counts[i++]!);
}

/** Resolves once the simulator has received `count` requests in all (the gateway sent them upstream). */
async function upstreamReceived(count: number): Promise<void> {
  while (tg.sim!.requests.length < count) await new Promise((resolve) => setImmediate(resolve));
}

test('a client that leaves before the answer: the prompt is charged as counted, the tables built off the event loop', async () => {
  const customer = await tg.customer(100);
  const body = { model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about the sea, in detail, with its tides and its winds.' }] };
  tg.sim!.enqueue({ kind: 'slow-first-byte', delayMs: 5_000 });
  const settled = tap.next((row) => row.account_id === customer.accountId);
  const before = tg.sim!.requests.length;
  const controller = new AbortController();
  const answer = fetch(`${tg.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  await upstreamReceived(before + 1);
  controller.abort();
  await assert.rejects(answer, { name: 'AbortError' });

  const row = await settled;
  assert.equal(row.status, 499);
  assert.equal(row.estimated, 1);
  assert.equal(o200kBuilt(), false, 'the event loop never built the tokenizer tables');
  assert.equal(row.prompt_tokens, await countedInThread((count) => countChatPromptTokens(body, count)));
  assert.equal(row.completion_tokens, 0);
  assert.equal(100e9 - tg.balanceNano(customer.accountId), row.cost_nano);
  assert.ok(row.cost_nano > 0);
  await tg.assertBillingInvariants(customer.accountId);
});

test('a client that leaves mid-stream (the tables built by now): the prompt and at least what it read are charged', async () => {
  const customer = await tg.customer(100);
  const messages = [{ role: 'user' as const, content: 'A long story, slowly, about a lighthouse keeper.' }];
  const settled = tap.next((row) => row.account_id === customer.accountId);
  const controller = new AbortController();
  const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }, { signal: controller.signal });
  const { received } = await readThenAbort(stream, controller, 4);
  const row = await settled;
  assert.equal(row.status, 499);
  assert.equal(row.estimated, 1, 'the vendor never sent its usage: counted locally');
  assert.equal(row.prompt_tokens, await countedInThread((count) => countChatPromptTokens({ messages }, count)));
  const read = await countedInThread((count) => count(received));
  assert.ok(read > 0);
  assert.ok(row.completion_tokens! >= read, `${row.completion_tokens} tokens charged, ${read} read`);
  assert.equal(100e9 - tg.balanceNano(customer.accountId), row.cost_nano);
  await tg.assertBillingInvariants(customer.accountId);
});
