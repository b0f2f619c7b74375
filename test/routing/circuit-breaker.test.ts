// A provider that keeps failing is skipped once its circuit opens, probed again after the
// cool-down (MODELGATE_BREAKER_COOLDOWN_MS), and taken back when a probe succeeds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { DEFAULT_BREAKER } from '../../src/pipeline/circuit-breaker.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider, chargeCount, usageRows, type SimProvider } from '../helpers/upstreams.ts';

const COOLDOWN_MS = 600;
let tg: TestGateway;
let flaky: SimProvider;
let steady: SimProvider;
let customer: Customer;
let client: OpenAI;

before(async () => {
  tg = await startTestGateway({ simulator: false, env: { MODELGATE_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS) } });
  flaky = await addSimProvider(tg, { name: 'flaky', models: ['gpt-4o-mini'], priority: 10 });
  steady = await addSimProvider(tg, { name: 'steady', models: ['gpt-4o-mini'], priority: 0 });
  customer = await tg.customer(10);
  client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
});
after(async () => {
  await tg.close();
  await flaky.close();
  await steady.close();
});

async function ask(): Promise<void> {
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'breaker' }], max_tokens: 5 });
  assert.ok(reply.choices[0]!.message.content);
}

const health = async (provider: SimProvider): Promise<string> => (await tg.admin('GET', `/admin/providers/${provider.id}`)).body.health;

/** Sends requests one after another until `flaky` receives one more request; returns how long that took. */
async function untilFlakyIsProbed(maxRequests = 5_000): Promise<{ elapsedMs: number; requests: number }> {
  const seen = flaky.sim.requests.length;
  const started = performance.now();
  for (let i = 1; i <= maxRequests; i++) {
    await ask();
    if (flaky.sim.requests.length > seen) return { elapsedMs: performance.now() - started, requests: i };
  }
  assert.fail(`the flaky provider was never probed in ${maxRequests} requests`);
}

test('a failing provider is skipped after the window’s failures, probed after the cool-down, taken back when healthy', { timeout: 60_000 }, async () => {
  // every request reaching "flaky" fails
  for (let i = 0; i < 100; i++) flaky.sim.enqueue({ kind: 'status', status: 500 });

  // each request fails on flaky, then succeeds on steady, until the circuit opens
  for (let i = 0; i < DEFAULT_BREAKER.minFailures - 1; i++) await ask();
  assert.equal(await health(flaky), 'closed', 'fewer failures than the threshold keep it closed');
  // the circuit opens during the next request, so not before this instant
  const openedAt = performance.now();
  await ask();
  assert.equal(flaky.sim.requests.length, DEFAULT_BREAKER.minFailures, 'one failure per request until the circuit opened');
  assert.equal(await health(flaky), 'open');

  // open: flaky is skipped, steady serves everything directly
  const steadyBefore = steady.sim.requests.length;
  for (let i = 0; i < 3; i++) await ask();
  const stillOpen = performance.now() - openedAt < COOLDOWN_MS;
  if (stillOpen) assert.equal(flaky.sim.requests.length, DEFAULT_BREAKER.minFailures, 'an open circuit receives no request');
  assert.equal(steady.sim.requests.length - steadyBefore, 3);

  // after the cool-down exactly one probe goes to flaky; it fails (still 500) and the circuit opens again
  const probe = await untilFlakyIsProbed();
  assert.ok(performance.now() - openedAt >= COOLDOWN_MS, 'no probe before the cool-down ended');
  assert.equal(flaky.sim.requests.length, DEFAULT_BREAKER.minFailures + 1, 'a single probe');
  assert.equal(await health(flaky), 'open');
  assert.ok(probe.requests >= 1);

  // every request was served (by steady) and charged exactly once
  const rows = await usageRows(tg, customer.accountId);
  assert.ok(rows.every((r) => r.status === 200 && r.provider_id === steady.id));
  assert.equal(await chargeCount(tg, customer.accountId), rows.length);
  await tg.assertBillingInvariants(customer.accountId);

  // flaky recovers: the next probe succeeds, the circuit closes and, having the higher priority, flaky serves again
  flaky.sim.reset();
  const recovery = await untilFlakyIsProbed();
  assert.ok(recovery.elapsedMs > 0);
  assert.equal(await health(flaky), 'closed');
  const before = flaky.sim.requests.length;
  for (let i = 0; i < 3; i++) await ask();
  assert.equal(flaky.sim.requests.length - before, 3, 'a closed circuit takes traffic again');
  await tg.assertBillingInvariants(customer.accountId);
});
