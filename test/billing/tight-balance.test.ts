import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { countChatPromptTokens } from '../../src/core/tokens/token-counter.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway();
});
after(async () => {
  await tg.close();
});

test('a balance that covers the exact upper bound but not the cheap byte bound is not refused', async () => {
  const request = { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user' as const, content: 'Say hello in a few words, please.' }] };
  const exactBound = countChatPromptTokens(request) * 150 + 10 * 600;
  const byteBound = (Buffer.byteLength(JSON.stringify(request)) + 3) * 150 + 10 * 600;
  assert.ok(byteBound > exactBound * 1.5, 'the two bounds differ enough for the test to mean something');
  // between the two: only the exact count admits the request
  const credit = Math.round((exactBound + byteBound) / 2);
  const customer = await tg.customer(credit / 1e9);
  const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
  const reply = await client.chat.completions.create(request);
  assert.ok(reply.usage);
  assert.equal(tg.balanceNano(customer.accountId), credit - (reply.usage.prompt_tokens * 150 + reply.usage.completion_tokens * 600));
  await tg.assertBillingInvariants(customer.accountId);
});
