// The timeout signal of health probes and video polls: it aborts as AbortSignal.timeout does, and
// has the shape of a client request's signal (an AbortController's), so that sending it upstream
// does not make V8 drop the request path's optimised code.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { timeoutSignal } from '../../src/core/timeout-signal.ts';
import { sendProbe } from '../../src/health/probe.ts';
import type { ProviderRuntime } from '../../src/pipeline/router.ts';
import { UpstreamClient } from '../../src/pipeline/upstream-client.ts';

test('it aborts once the time is up, with the TimeoutError AbortSignal.timeout gives', async () => {
  const signal = timeoutSignal(20);
  assert.equal(signal.aborted, false);
  await once(signal, 'abort');
  assert.ok(signal.reason instanceof DOMException);
  assert.equal(signal.reason.name, 'TimeoutError');
  assert.equal(signal.reason.message, 'The operation was aborted due to timeout');
});

test('its own properties are those of a client request’s signal (AbortSignal.timeout adds one)', () => {
  const keys = (signal: AbortSignal) => Reflect.ownKeys(signal).map(String);
  const requestSignal = new AbortController().signal;
  assert.deepEqual(keys(timeoutSignal(1_000)), keys(requestSignal));
  assert.notDeepEqual(keys(AbortSignal.timeout(1_000)), keys(requestSignal));
});

test('a probe of a provider that never answers ends at its timeout, with no status', async () => {
  const server = createServer(() => undefined); // holds every request
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const upstream = new UpstreamClient();
  try {
    const runtime = {
      upstream: { poolKey: 'p', baseUrl: `http://127.0.0.1:${port}/v1`, maxConnections: 1, timeouts: { connectMs: 5_000, firstByteMs: 5_000, idleMs: 5_000 } },
    } as unknown as ProviderRuntime;
    const answer = await sendProbe(upstream, runtime, { method: 'GET', path: '/models', headers: {} }, 50);
    assert.equal(answer.status, null);
    // named a timeout, as the headers' or body's timers are (it read "upstream connection failed (23)": DOMException's code)
    assert.equal(answer.error, 'upstream timed out');
    // the probe's 50 ms ended it, not the target's 5-s timeouts (the loop's clock is read once a turn: a ms early at most)
    assert.ok(answer.latency_ms >= 49 && answer.latency_ms < 5_000, `ended after ${answer.latency_ms} ms`);
  } finally {
    await upstream.close();
    server.closeAllConnections();
    server.close();
  }
});
