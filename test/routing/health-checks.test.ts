// Scheduled health checks: a provider whose probes fail (its models list answers 503) is taken out
// of rotation before any customer request reaches it, and put back once a probe passes again; the
// console's operator API shows the probe history and /metrics counts the probes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import type { ProbeResult } from '../../src/health/probe.ts';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';
import { ADMIN_TOKEN, type Customer } from '../helpers/gateway.ts';
import { addSimProvider, type SimProvider } from '../helpers/upstreams.ts';

const FAILURES = 2;
let tg: ConsoleGateway;
let primary: SimProvider;
let backup: SimProvider;
let unprobed: SimProvider;
let customer: Customer;
let client: OpenAI;

before(async () => {
  tg = await startConsoleGateway({ simulator: false, env: { MODELGATE_HEALTH_INTERVAL_MS: '150', MODELGATE_HEALTH_FAILURES: String(FAILURES) } });
  primary = await addSimProvider(tg, { name: 'primary', models: ['gpt-4o-mini'], priority: 10 });
  backup = await addSimProvider(tg, { name: 'backup', models: ['gpt-4o-mini'], priority: 0 });
  unprobed = await addSimProvider(tg, { name: 'unprobed', models: ['gpt-4o'], settings: { health_check: { enabled: false } } });
  customer = await tg.customer(10);
  client = new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 });
});
after(async () => {
  await tg.close();
  for (const p of [primary, backup, unprobed]) await p.close();
});

/** Resolves at the next probe result the monitor applies to `providerId` that matches. */
function nextApplied(providerId: string, match: (result: ProbeResult, up: boolean) => boolean): Promise<{ result: ProbeResult; up: boolean }> {
  return new Promise((resolve) => {
    const listener = (id: string, result: ProbeResult, up: boolean) => {
      if (id !== providerId || !match(result, up)) return;
      tg.gateway.health.events.off('applied', listener);
      resolve({ result, up });
    };
    tg.gateway.health.events.on('applied', listener);
  });
}

const customerRequests = (p: SimProvider) => p.sim.requests.filter((r) => r.method === 'POST').length;
const probeRequests = (p: SimProvider) => p.sim.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/models')).length;

async function ask(): Promise<void> {
  const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'health' }], max_tokens: 5 });
  assert.ok(reply.choices[0]!.message.content);
}

test('probes alone take a failing provider out of rotation, and put it back when they pass', { timeout: 60_000 }, async () => {
  // healthy at first: a passing probe, and customers go to the preferred provider
  const firstPass = await nextApplied(primary.id, (r) => r.ok);
  assert.equal(firstPass.up, true);
  await ask();
  assert.equal(customerRequests(primary), 1);

  primary.sim.setOutage(503);
  const firstFailure = await nextApplied(primary.id, (r) => !r.ok);
  assert.equal(firstFailure.up, true, `one failed probe is not enough (${FAILURES} in a row are)`);
  assert.equal(firstFailure.result.status, 503);
  const down = await nextApplied(primary.id, (r, up) => !r.ok && !up);
  assert.match(down.result.message, /503/);
  assert.equal((await tg.admin('GET', `/admin/providers/${primary.id}`)).body.health, 'open');

  // the next customer request goes to the backup on its first attempt: the failing provider sees none
  const primaryBefore = customerRequests(primary);
  const backupBefore = customerRequests(backup);
  await ask();
  await ask();
  assert.equal(customerRequests(primary), primaryBefore, 'no customer request reached the failing provider');
  assert.equal(customerRequests(backup), backupBefore + 2, 'each request answered by the backup at once');
  assert.ok(primary.sim.requests.filter((r) => r.method === 'POST').length === 1, 'only the request sent before the outage');

  // the outage ends: one passing probe puts it back
  primary.sim.setOutage(null);
  const back = await nextApplied(primary.id, (r) => r.ok);
  assert.equal(back.up, true);
  assert.equal((await tg.admin('GET', `/admin/providers/${primary.id}`)).body.health, 'closed');
  await ask();
  assert.equal(customerRequests(primary), primaryBefore + 1, 'the preferred provider serves again');

  // a provider whose health check is turned off is never probed
  assert.ok(probeRequests(primary) >= 4);
  assert.equal(probeRequests(unprobed), 0);
});

test('the console operator API returns each provider’s probe history; /metrics counts probes', async () => {
  const ops = await tg.operator();
  const res = await ops.get(`/console/api/admin/providers/${primary.id}/health`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.interval_ms, 150);
  assert.equal(res.body.health, 'closed');
  const history = res.body.data as ProbeResult[];
  assert.ok(history.length >= 4);
  assert.equal(history[0]!.ok, true, 'newest first: the probe that put it back');
  const failed = history.find((h) => !h.ok);
  assert.ok(failed && failed.status === 503 && typeof failed.latency_ms === 'number' && !Number.isNaN(Date.parse(failed.at)));
  const times = history.map((h) => Date.parse(h.at));
  assert.deepEqual(times, [...times].sort((a, b) => b - a));

  const list = await ops.get('/console/api/admin/providers');
  const row = list.body.data.find((p: { id: string }) => p.id === primary.id);
  assert.ok(Array.isArray(row.probes) && row.probes.length > 0);
  assert.equal((await ops.get(`/console/api/admin/providers/${unprobed.id}/health`)).body.data.length, 0);
  const customerClient = (await tg.registerCustomer()).client;
  assert.equal((await customerClient.get(`/console/api/admin/providers/${primary.id}/health`)).status, 403);

  const metrics = await (await fetch(`${tg.origin}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  assert.match(metrics, /modelgate_provider_probe_total\{provider="primary",result="fail"\} [1-9]/);
  assert.match(metrics, /modelgate_provider_probe_total\{provider="primary",result="ok"\} [1-9]/);
  assert.match(metrics, /modelgate_provider_probe_latency_seconds_count\{provider="backup"\} [1-9]/);
  assert.match(metrics, /modelgate_provider_healthy\{provider="primary"\} 1/);
  assert.doesNotMatch(metrics, /provider="unprobed"/);
});

test('each family’s own probe passes against its simulator', { timeout: 60_000 }, async () => {
  const { adapters } = await import('../../src/vendors/registry.ts');
  const { simulators } = await import('../../simulators/registry.ts');
  const probed = Object.values(adapters).filter((a) => a.healthProbe && simulators[a.manifest.family]);
  assert.ok(probed.length >= 3);
  for (const adapter of probed) {
    const sim = await simulators[adapter.manifest.family]!();
    try {
      const created = await tg.admin('POST', '/admin/providers', {
        name: `probe-${adapter.manifest.family}`,
        type: adapter.manifest.family,
        base_url: sim.baseUrl,
        api_key: sim.apiKey,
        models: [adapter.manifest.models[0]!.id],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { result } = await nextApplied(created.body.id, () => true);
      assert.equal(result.ok, true, `${adapter.manifest.family}: ${result.message}`);
      await tg.admin('DELETE', `/admin/providers/${created.body.id}`);
    } finally {
      await sim.close();
    }
  }
});
