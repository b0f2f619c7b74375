// Which provider serves a request: the highest priority first, traffic shared by weight among
// equal priorities, disabled providers skipped, model_map applied — all changeable at run time.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider, usageRows, type SimProvider } from '../helpers/upstreams.ts';

let tg: TestGateway;
let a: SimProvider;
let b: SimProvider;
let customer: Customer;
let client: OpenAI;

before(async () => {
  tg = await startTestGateway({ simulator: false });
  a = await addSimProvider(tg, { name: 'a', models: ['gpt-4o-mini', 'gpt-4o'] });
  b = await addSimProvider(tg, { name: 'b', models: ['gpt-4o-mini', 'gpt-4o'] });
  customer = await tg.customer(10);
  client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
});
after(async () => {
  await tg.close();
  await a.close();
  await b.close();
});
beforeEach(() => {
  a.sim.reset();
  b.sim.reset();
});

async function configure(provider: SimProvider, patch: Record<string, unknown>): Promise<void> {
  const res = await tg.admin('PATCH', `/admin/providers/${provider.id}`, patch);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function send(count: number, model = 'gpt-4o-mini', parallel = 10): Promise<void> {
  for (let done = 0; done < count; done += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count - done) }, (_, i) =>
        client.chat.completions.create({ model, messages: [{ role: 'user', content: `route ${done + i}` }], max_tokens: 5 }),
      ),
    );
  }
}

test('the higher priority provider takes every request', async () => {
  await configure(a, { priority: 5, weight: 1 });
  await configure(b, { priority: 0, weight: 100 });
  await send(20);
  assert.equal(a.sim.requests.length, 20);
  assert.equal(b.sim.requests.length, 0, 'a lower priority is only a fallback, whatever its weight');

  // a change through the admin API applies to the next request
  await configure(b, { priority: 9 });
  await send(10);
  assert.equal(a.sim.requests.length, 20);
  assert.equal(b.sim.requests.length, 10);
});

test('equal priorities share traffic roughly by weight (3:1 over 200 requests)', async () => {
  await configure(a, { priority: 0, weight: 3 });
  await configure(b, { priority: 0, weight: 1 });
  await send(200);
  const share = a.sim.requests.length / 200;
  assert.equal(a.sim.requests.length + b.sim.requests.length, 200);
  // expected 0.75; a binomial(200, 0.75) is within ±0.12 with probability > 0.9999
  assert.ok(share > 0.63 && share < 0.87, `provider a got ${a.sim.requests.length} of 200`);
  // the usage rows name the provider that served each request
  const rows = (await usageRows(tg, customer.accountId)).slice(0, 200);
  assert.equal(rows.filter((r) => r.provider_id === a.id).length, a.sim.requests.length);
  await tg.assertBillingInvariants(customer.accountId);
});

test('equal weights share traffic about evenly', async () => {
  await configure(a, { priority: 0, weight: 1 });
  await configure(b, { priority: 0, weight: 1 });
  await send(200);
  const share = a.sim.requests.length / 200;
  assert.ok(share > 0.35 && share < 0.65, `provider a got ${a.sim.requests.length} of 200`);
});

test('a disabled provider is skipped; enabling it brings it back', async () => {
  await configure(a, { priority: 5, enabled: false });
  await configure(b, { priority: 0 });
  await send(10);
  assert.equal(a.sim.requests.length, 0);
  assert.equal(b.sim.requests.length, 10);
  await configure(a, { enabled: true });
  await send(10);
  assert.equal(a.sim.requests.length, 10);
});

test('model_map: the upstream gets its own model id, the client sees the public one', async () => {
  await configure(a, { priority: 5, enabled: true, model_map: { 'gpt-4o': 'gpt-4o-mini' } });
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'mapped' }] });
  assert.equal(reply.model, 'gpt-4o');
  assert.equal((a.sim.requests.at(-1)!.body as { model: string }).model, 'gpt-4o-mini');
  // billed at the public model's price
  const row = (await usageRows(tg, customer.accountId))[0];
  assert.equal(row.model, 'gpt-4o');
  assert.equal(Math.round(row.cost_usd * 1e9), reply.usage!.prompt_tokens * 2500 + reply.usage!.completion_tokens * 10_000);

  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'mapped stream' }], stream: true });
  for await (const chunk of stream) assert.equal(chunk.model, 'gpt-4o');
  await configure(a, { model_map: {} });
});

test('a provider serving other models only is never asked', async () => {
  await configure(a, { priority: 5, models: ['gpt-4o'] });
  await configure(b, { priority: 0, models: ['gpt-4o-mini', 'gpt-4o'] });
  await send(5, 'gpt-4o-mini');
  assert.equal(a.sim.requests.length, 0);
  assert.equal(b.sim.requests.length, 5);
  await configure(a, { models: ['gpt-4o-mini', 'gpt-4o'] });
});
