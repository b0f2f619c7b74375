import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetrics } from '../../src/observability/metrics.ts';

const gauges = { openReservations: () => 0, pendingWrites: () => 0, flush: () => ({ lagMs: 0, pending: 0, deadLetters: 0, stuckEntries: 0, failedFlushes: 0 }) };

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('per-request counts kept in cells reach /metrics once, added to direct increments', async () => {
  const m = createMetrics(gauges);
  for (let i = 0; i < 3; i++) m.requestCounts.add('/v1/chat/completions', 200, 1);
  m.requestCounts.add('/v1/chat/completions', 429, 1);
  m.requests.inc({ endpoint: '/v1/chat/completions', status: '200' }); // realtime still increments directly
  m.tokenCounts.add('gpt-4o-mini', 'input', 34);
  m.tokenCounts.add('gpt-4o-mini', 'output', 0);
  m.costCounts.add('gpt-4o-mini', '', 0.25);
  m.costCounts.add('gpt-4o-mini', '', 0.5);

  let text = await m.registry.metrics();
  assert.equal(value(text, 'modelgate_requests_total{endpoint="/v1/chat/completions",status="200"}'), 4);
  assert.equal(value(text, 'modelgate_requests_total{endpoint="/v1/chat/completions",status="429"}'), 1);
  assert.equal(value(text, 'modelgate_tokens_total{model="gpt-4o-mini",direction="input"}'), 34);
  // an add of 0 shows the series, as prom-client's own inc(…, 0) did
  assert.equal(value(text, 'modelgate_tokens_total{model="gpt-4o-mini",direction="output"}'), 0);
  assert.equal(value(text, 'modelgate_cost_usd_total{model="gpt-4o-mini"}'), 0.75);

  // read again: nothing counted twice; later adds go on from there
  text = await m.registry.metrics();
  assert.equal(value(text, 'modelgate_requests_total{endpoint="/v1/chat/completions",status="200"}'), 4);
  m.requestCounts.add('/v1/chat/completions', 200, 1);
  text = await m.registry.metrics();
  assert.equal(value(text, 'modelgate_requests_total{endpoint="/v1/chat/completions",status="200"}'), 5);
  assert.equal(value(text, 'modelgate_cost_usd_total{model="gpt-4o-mini"}'), 0.75);
});
