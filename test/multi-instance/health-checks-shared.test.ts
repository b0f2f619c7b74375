// Health checks shared through Redis: two gateways on one PostgreSQL schema and one Redis wake for
// the same time slots, and a lease per provider and slot lets only one of them probe; the result
// is published, so both take the provider out of rotation (and both keep the same history).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ProbeResult } from '../../src/health/probe.ts';
import { postgresDatabase } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { addSimProvider, type SimProvider } from '../helpers/upstreams.ts';

const REDIS = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const INTERVAL_MS = 200;
const database = postgresDatabase('health');
let a: TestGateway;
let b: TestGateway;
let provider: SimProvider;

before(async () => {
  const env = { REDIS_URL: REDIS, MODELGATE_HEALTH_INTERVAL_MS: String(INTERVAL_MS), MODELGATE_HEALTH_FAILURES: '1' };
  a = await startTestGateway({ simulator: false, databaseUrl: database.url, env });
  b = await startTestGateway({ simulator: false, databaseUrl: database.url, env });
});
after(async () => {
  await a?.close();
  await b?.close();
  await provider?.close();
  await database.drop();
});

/** Resolves once `condition` holds, checked after each probe result either instance applies. */
function whenApplied(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!condition()) return;
      for (const g of [a, b]) g.gateway.health.events.off('applied', check);
      resolve();
    };
    for (const g of [a, b]) g.gateway.health.events.on('applied', check);
    check();
  });
}

test('two instances sharing Redis probe each provider once per interval and both act on the result', { timeout: 60_000 }, async () => {
  provider = await addSimProvider(a, { name: 'shared', models: ['gpt-4o-mini'] });
  const probedBy = { a: [] as number[], b: [] as number[] };
  a.gateway.health.events.on('probed', (id: string, _r: ProbeResult, slot: number) => id === provider.id && probedBy.a.push(slot));
  b.gateway.health.events.on('probed', (id: string, _r: ProbeResult, slot: number) => id === provider.id && probedBy.b.push(slot));
  const probesReceived = () => provider.sim.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models').length;

  // both instances know the provider (B through the shared database) and have seen results probed by the other
  await whenApplied(() => b.gateway.router.get(provider.id) !== undefined && probedBy.a.length + probedBy.b.length >= 6 && b.gateway.health.history(provider.id).length >= 4);

  // an outage: one failed probe (FAILURES=1), run by whichever instance held the slot, takes it out on both
  provider.sim.setOutage(503);
  await whenApplied(() => a.gateway.router.get(provider.id)!.breaker.state() === 'open' && b.gateway.router.get(provider.id)!.breaker.state() === 'open');
  provider.sim.setOutage(null);
  await whenApplied(() => a.gateway.router.get(provider.id)!.breaker.state() === 'closed' && b.gateway.router.get(provider.id)!.breaker.state() === 'closed');

  await a.gateway.health.stop();
  await b.gateway.health.stop();
  const slots = [...probedBy.a, ...probedBy.b];
  assert.equal(new Set(slots).size, slots.length, `no slot probed twice (a: ${probedBy.a}, b: ${probedBy.b})`);
  assert.equal(probesReceived(), slots.length, 'the provider received one probe per slot, not one per instance');
  const span = Math.max(...slots) - Math.min(...slots) + 1;
  assert.ok(slots.length <= span, `at most one probe per interval (${slots.length} probes over ${span} intervals)`);
  // the results one instance ran are in the other's history too (but perhaps the last, in flight when they stopped)
  for (const g of [a, b]) assert.ok(g.gateway.health.history(provider.id).length >= slots.length - 1);
  assert.ok(a.gateway.health.history(provider.id).some((r) => !r.ok && r.status === 503));
});
