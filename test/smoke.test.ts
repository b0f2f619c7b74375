import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from './helpers/gateway.ts';

let tg: TestGateway;
before(async () => {
  tg = await startTestGateway();
});
after(async () => {
  await tg.close();
});

test('a customer key gets a chat completion and is charged exactly', async () => {
  const customer = await tg.customer(1);
  const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL });
  const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello!' }] });
  assert.match(completion.choices[0]?.message.content ?? '', /Echo: Hello!/);
  const usage = completion.usage!;
  const expectedNano = usage.prompt_tokens * 150 + usage.completion_tokens * 600;
  assert.equal(tg.balanceNano(customer.accountId), 1_000_000_000 - expectedNano);
  await tg.assertBillingInvariants(customer.accountId);
});
