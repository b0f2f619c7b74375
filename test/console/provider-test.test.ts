// The providers page's "test" button: one small chat request straight to the provider over the
// upstream client the health probes use, outside routing and billing; operators only.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';
import { addSimProvider, type SimProvider } from '../helpers/upstreams.ts';

let tg: ConsoleGateway;
let provider: SimProvider;

before(async () => {
  tg = await startConsoleGateway({ simulator: false, env: { MODELGATE_HEALTH_INTERVAL_MS: '3600000' } });
  provider = await addSimProvider(tg, { name: 'tested', models: ['gpt-4o-mini'], settings: { health_check: { enabled: false } } });
});
after(async () => {
  await tg.close();
  await provider.close();
});

test('a working provider answers the test with its model; a failing one with its status and message', async () => {
  const ops = await tg.operator();
  const path = `/console/api/admin/providers/${provider.id}/test`;

  const ok = await ops.post(path);
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(Object.keys(ok.body), ['ok', 'model', 'status', 'latency_ms', 'message']);
  assert.equal(ok.body.ok, true);
  assert.equal(ok.body.model, 'gpt-4o-mini');
  assert.equal(ok.body.status, 200);
  assert.equal(ok.body.message, 'gpt-4o-mini answered.');
  const sent = provider.sim.requests.filter((r) => r.method === 'POST');
  assert.equal(sent.length, 1);
  assert.match(sent[0]!.path, /\/chat\/completions$/);
  assert.equal(sent[0]!.headers.authorization, 'Bearer sim-key-tested');

  provider.sim.setOutage(503);
  const down = await ops.post(path);
  provider.sim.setOutage(null);
  assert.equal(down.status, 200, down.text);
  assert.equal(down.body.ok, false);
  assert.equal(down.body.status, 503);
  assert.equal(typeof down.body.message, 'string');
  assert.ok(down.body.message.length > 0);

  assert.equal((await ops.post('/console/api/admin/providers/prov_missing/test')).status, 404);
  const customer = await tg.registerCustomer();
  assert.equal((await customer.client.post(path)).status, 403);
});
