import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { RequestHistogram } from '../../src/observability/request-histogram.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const NAME = 'modelgate_request_duration_seconds';

/** the same observations through prom-client's Histogram and through RequestHistogram, each in a registry of its own */
async function both(observations: Array<[string, number]>): Promise<[string, string]> {
  const reference = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({ name: NAME, help: 'Time from request to the end of the answer', labelNames: ['endpoint'], buckets: BUCKETS, registers: [reference] });
  const fast = new RequestHistogram({ name: NAME, help: 'Time from request to the end of the answer', labelName: 'endpoint', buckets: BUCKETS, registers: [ours] });
  for (const [endpoint, seconds] of observations) {
    histogram.observe({ endpoint }, seconds);
    fast.observe(endpoint, seconds);
  }
  return [await reference.metrics(), await ours.metrics()];
}

test('/metrics shows what prom-client’s Histogram shows for the same observations', async () => {
  const observations: Array<[string, number]> = [];
  // on a bound, between bounds, below the first, past the last, several label values
  for (const seconds of [0, 0.005, 0.0051, 0.01, 0.3, 1, 7, 120, 120.5, 1000]) observations.push(['/v1/chat/completions', seconds]);
  for (const seconds of [0.02, 0.02, 2.5]) observations.push(['/v1/messages', seconds]);
  const [reference, ours] = await both(observations);
  assert.match(ours, /modelgate_request_duration_seconds_bucket\{le="0.005",endpoint="\/v1\/chat\/completions"\} 2/);
  assert.match(ours, /modelgate_request_duration_seconds_count\{endpoint="\/v1\/messages"\} 3/);
  assert.equal(ours, reference);
});

test('a value that is not a finite number is not counted', async () => {
  const registry = new Registry();
  const fast = new RequestHistogram({ name: NAME, help: 'h', labelName: 'endpoint', buckets: BUCKETS, registers: [registry] });
  fast.observe('/v1/embeddings', Number.NaN);
  fast.observe('/v1/embeddings', Number.POSITIVE_INFINITY);
  fast.observe('/v1/embeddings', 0.2);
  const text = await registry.metrics();
  assert.match(text, /modelgate_request_duration_seconds_count\{endpoint="\/v1\/embeddings"\} 1\n/);
  assert.match(text, /modelgate_request_duration_seconds_sum\{endpoint="\/v1\/embeddings"\} 0.2\n/);
});

test('nothing observed: the metric is listed without series, as prom-client lists it; reset empties it', async () => {
  const [reference, ours] = await both([]);
  assert.equal(ours, reference);
  const registry = new Registry();
  const fast = new RequestHistogram({ name: NAME, help: 'h', labelName: 'endpoint', buckets: BUCKETS, registers: [registry] });
  fast.observe('/v1/embeddings', 0.2);
  registry.resetMetrics();
  assert.doesNotMatch(await registry.metrics(), /_count/);
});
