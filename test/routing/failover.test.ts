// Failover between providers serving the same model: a failure before the first byte moves the
// request to the next provider and the customer pays once; after the first byte there is no
// second try. MODELGATE_MAX_ATTEMPTS bounds the providers tried.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import OpenAI from 'openai';
import { SseDecoder } from '../../src/core/sse.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { addDeadProvider, addSimProvider, chargeCount, usageRows, usdToNanoExact, type SimProvider } from '../helpers/upstreams.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Pair {
  tg: TestGateway;
  /** priority 10: tried first */
  primary: SimProvider;
  /** priority 0: the fallback */
  backup: SimProvider;
  customer: Customer;
  client: OpenAI;
}

/** A gateway without its default simulator, with a primary and a backup simulator serving gpt-4o-mini. */
async function pair(env: Record<string, string> = {}): Promise<Pair> {
  const tg = await startTestGateway({ simulator: false, env });
  cleanups.push(() => tg.close());
  const primary = await addSimProvider(tg, { name: 'primary', models: ['gpt-4o-mini'], priority: 10 });
  cleanups.push(() => primary.close());
  const backup = await addSimProvider(tg, { name: 'backup', models: ['gpt-4o-mini'], priority: 0 });
  cleanups.push(() => backup.close());
  const customer = await tg.customer(1);
  return { tg, primary, backup, customer, client: new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 }) };
}

/** The request succeeded on the backup and was charged exactly once, at the backup's usage. */
async function assertServedByBackupOnce(p: Pair, usage: OpenAI.CompletionUsage): Promise<void> {
  assert.equal(p.primary.sim.requests.length, 1, 'the primary was tried');
  assert.equal(p.backup.sim.requests.length, 1, 'then the backup');
  const rows = await usageRows(p.tg, p.customer.accountId);
  assert.equal(rows.length, 1, 'one request, one usage row');
  assert.equal(rows[0].provider_id, p.backup.id);
  assert.equal(rows[0].status, 200);
  const cost = usage.prompt_tokens * 150 + usage.completion_tokens * 600;
  assert.equal(usdToNanoExact(rows[0].cost_usd), cost);
  assert.equal(1e9 - p.tg.balanceNano(p.customer.accountId), cost, 'charged once');
  assert.equal(await chargeCount(p.tg, p.customer.accountId), 1);
  await p.tg.assertBillingInvariants(p.customer.accountId);
}

const ask = (p: Pair, content = 'fail over please') => p.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });

describe('failover before the first byte', () => {
  for (const status of [500, 502, 503, 429]) {
    test(`primary answers ${status}: served by the backup, charged once`, async () => {
      const p = await pair();
      p.primary.sim.enqueue({ kind: 'status', status, retryAfterSeconds: 0 });
      const reply = await ask(p);
      assert.match(reply.choices[0]!.message.content ?? '', /Echo: fail over please/);
      await assertServedByBackupOnce(p, reply.usage!);
    });
  }

  test('primary refuses the connection: served by the backup, charged once', async () => {
    const tg = await startTestGateway({ simulator: false });
    cleanups.push(() => tg.close());
    await addDeadProvider(tg, 'dead-primary', ['gpt-4o-mini'], { priority: 10 });
    const backup = await addSimProvider(tg, { name: 'backup', models: ['gpt-4o-mini'] });
    cleanups.push(() => backup.close());
    const customer = await tg.customer(1);
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'dead first' }] });
    assert.equal(backup.sim.requests.length, 1);
    const rows = await usageRows(tg, customer.accountId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].provider_id, backup.id);
    assert.equal(1e9 - tg.balanceNano(customer.accountId), reply.usage!.prompt_tokens * 150 + reply.usage!.completion_tokens * 600);
    assert.equal(await chargeCount(tg, customer.accountId), 1);
    await tg.assertBillingInvariants(customer.accountId);
  });

  test('primary slower than MODELGATE_FIRST_BYTE_TIMEOUT_MS: served by the backup, charged once', async () => {
    const p = await pair({ MODELGATE_FIRST_BYTE_TIMEOUT_MS: '150' });
    p.primary.sim.enqueue({ kind: 'slow-first-byte', delayMs: 5_000 });
    const started = performance.now();
    const reply = await ask(p);
    assert.ok(performance.now() - started < 4_000, 'the gateway did not wait for the slow primary');
    await assertServedByBackupOnce(p, reply.usage!);
  });

  test('a streamed request fails over too while nothing was sent to the client', async () => {
    const p = await pair();
    p.primary.sim.enqueue({ kind: 'status', status: 500 });
    const stream = await p.client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream after failover' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    assert.ok(usage);
    await assertServedByBackupOnce(p, usage);
  });

  test('a request error from the primary (400) is not retried elsewhere', async () => {
    const p = await pair();
    p.primary.sim.enqueue({ kind: 'status', status: 400, message: 'bad request', code: 'invalid_value' });
    await assert.rejects(ask(p), (error: unknown) => error instanceof OpenAI.APIError && error.status === 400);
    assert.equal(p.backup.sim.requests.length, 0);
    assert.equal(p.tg.balanceNano(p.customer.accountId), 1e9);
  });
});

describe('no failover after the first byte', () => {
  test('a stream cut mid-way is not retried on the backup', async () => {
    const p = await pair();
    p.primary.sim.enqueue({ kind: 'cut-stream', afterChunks: 3 });
    const res = await fetch(`${p.tg.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.customer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'cut' }] }),
    });
    assert.equal(res.status, 200);
    const decoder = new SseDecoder();
    const events = decoder.push(new Uint8Array(await res.arrayBuffer())).map((e) => e.data);
    assert.ok(!events.includes('[DONE]'));
    assert.ok(JSON.parse(events.at(-1)!).error, 'ends with an in-band error');
    assert.equal(p.primary.sim.requests.length, 1);
    assert.equal(p.backup.sim.requests.length, 0, 'the backup never saw the request');
    assert.equal(p.tg.balanceNano(p.customer.accountId), 1e9, 'not charged');
    await p.tg.assertBillingInvariants(p.customer.accountId);
  });
});

describe('MODELGATE_MAX_ATTEMPTS', () => {
  /** Three failing providers (priorities 3, 2, 1) and a healthy one (priority 0). */
  async function ladder(maxAttempts: number) {
    const tg = await startTestGateway({ simulator: false, env: { MODELGATE_MAX_ATTEMPTS: String(maxAttempts) } });
    cleanups.push(() => tg.close());
    const failing: SimProvider[] = [];
    for (const priority of [3, 2, 1]) {
      const provider = await addSimProvider(tg, { name: `failing-${priority}`, models: ['gpt-4o-mini'], priority });
      cleanups.push(() => provider.close());
      provider.sim.enqueue({ kind: 'status', status: 503 });
      failing.push(provider);
    }
    const healthy = await addSimProvider(tg, { name: 'healthy', models: ['gpt-4o-mini'], priority: 0 });
    cleanups.push(() => healthy.close());
    const customer = await tg.customer(1);
    const client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
    return { tg, failing, healthy, customer, client };
  }

  test('2 attempts: the first two providers are tried, then 502; nothing charged', async () => {
    const l = await ladder(2);
    await assert.rejects(
      l.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 502,
    );
    assert.deepEqual(
      [...l.failing.map((f) => f.sim.requests.length), l.healthy.sim.requests.length],
      [1, 1, 0, 0],
    );
    assert.equal(l.tg.balanceNano(l.customer.accountId), 1e9);
    await l.tg.assertBillingInvariants(l.customer.accountId);
  });

  test('4 attempts: the healthy fourth provider answers; charged once', async () => {
    const l = await ladder(4);
    const reply = await l.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] });
    assert.deepEqual(
      [...l.failing.map((f) => f.sim.requests.length), l.healthy.sim.requests.length],
      [1, 1, 1, 1],
    );
    assert.equal(1e9 - l.tg.balanceNano(l.customer.accountId), reply.usage!.prompt_tokens * 150 + reply.usage!.completion_tokens * 600);
    assert.equal(await chargeCount(l.tg, l.customer.accountId), 1);
    await l.tg.assertBillingInvariants(l.customer.accountId);
  });
});
