import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CircuitBreaker, DEFAULT_BREAKER, type BreakerOptions } from '../../src/pipeline/circuit-breaker.ts';

const options: BreakerOptions = { windowMs: 10_000, minFailures: 3, failureRatio: 0.5, cooldownMs: 5_000 };
const T0 = 1_700_000_000_000; // any fixed epoch: the breaker only ever sees the explicit `now`

function failTimes(breaker: CircuitBreaker, count: number, at: number): void {
  for (let i = 0; i < count; i++) breaker.record(false, at);
}

/** A breaker opened at T0 by `minFailures` failures. */
function opened(): CircuitBreaker {
  const breaker = new CircuitBreaker(options);
  failTimes(breaker, options.minFailures, T0);
  assert.equal(breaker.state(T0), 'open');
  return breaker;
}

describe('closed circuit', () => {
  test('one failure never opens it, even on a provider that never succeeded', () => {
    const breaker = new CircuitBreaker(options);
    breaker.record(false, T0);
    assert.equal(breaker.state(T0), 'closed');
    assert.equal(breaker.allows(T0), true);
    // the defaults are as tolerant
    const defaults = new CircuitBreaker();
    defaults.record(false, T0);
    assert.equal(defaults.state(T0), 'closed');
    assert.ok(DEFAULT_BREAKER.minFailures > 1);
  });

  test('opens at minFailures failures inside the window when they are at least the failure ratio', () => {
    const breaker = new CircuitBreaker(options);
    failTimes(breaker, options.minFailures - 1, T0);
    assert.equal(breaker.state(T0 + 1), 'closed');
    breaker.record(false, T0 + 2);
    assert.equal(breaker.state(T0 + 2), 'open');
    assert.equal(breaker.allows(T0 + 2), false);
  });

  test('enough failures but below the ratio keeps it closed', () => {
    const breaker = new CircuitBreaker(options);
    for (let i = 0; i < 10; i++) breaker.record(true, T0);
    failTimes(breaker, 5, T0 + 1); // 5 of 15 = 33% < 50%
    assert.equal(breaker.state(T0 + 1), 'closed');
    failTimes(breaker, 5, T0 + 2); // 10 of 20 = 50%
    assert.equal(breaker.state(T0 + 2), 'open');
  });

  test('failures older than the window are forgotten', () => {
    const breaker = new CircuitBreaker(options);
    failTimes(breaker, options.minFailures - 1, T0);
    const later = T0 + options.windowMs + 1_000;
    breaker.record(false, later);
    assert.equal(breaker.state(later), 'closed', 'only one failure is inside the window');
    failTimes(breaker, options.minFailures - 1, later);
    assert.equal(breaker.state(later), 'open');
  });
});

describe('open and half-open circuit', () => {
  test('skips the provider for the cool-down, then lets exactly one probe through', () => {
    const breaker = opened();
    assert.equal(breaker.allows(T0 + options.cooldownMs - 1), false);
    assert.equal(breaker.state(T0 + options.cooldownMs - 1), 'open');
    const probeAt = T0 + options.cooldownMs;
    assert.equal(breaker.state(probeAt), 'half-open');
    assert.equal(breaker.allows(probeAt), true, 'the probe');
    assert.equal(breaker.allows(probeAt), false, 'a second request while the probe is out');
    assert.equal(breaker.allows(probeAt + 60_000), false, 'still one probe, however late');
  });

  test('a successful probe closes the circuit and forgets the old failures', () => {
    const breaker = opened();
    const probeAt = T0 + options.cooldownMs;
    assert.equal(breaker.allows(probeAt), true);
    breaker.record(true, probeAt + 10);
    assert.equal(breaker.state(probeAt + 10), 'closed');
    assert.equal(breaker.allows(probeAt + 10), true);
    assert.equal(breaker.allows(probeAt + 10), true);
    // one new failure does not reopen it (the pre-opening failures were cleared)
    breaker.record(false, probeAt + 20);
    assert.equal(breaker.state(probeAt + 20), 'closed');
  });

  test('a failed probe opens it for another full cool-down', () => {
    const breaker = opened();
    const probeAt = T0 + options.cooldownMs;
    assert.equal(breaker.allows(probeAt), true);
    const failedAt = probeAt + 100;
    breaker.record(false, failedAt);
    assert.equal(breaker.state(failedAt), 'open');
    assert.equal(breaker.allows(failedAt + options.cooldownMs - 1), false);
    assert.equal(breaker.allows(failedAt + options.cooldownMs), true, 'the next probe');
  });

  test('outcomes of requests sent before the circuit opened do not count as the probe', () => {
    const breaker = opened();
    breaker.record(true, T0 + 1); // a straggler while open, no probe out
    assert.equal(breaker.state(T0 + 1), 'open');
    assert.equal(breaker.allows(T0 + 1), false);
  });

  test('a probe cancelled by its client frees the slot for the next probe', () => {
    const breaker = opened();
    const probeAt = T0 + options.cooldownMs;
    assert.equal(breaker.allows(probeAt), true);
    assert.equal(breaker.allows(probeAt), false);
    breaker.cancelProbe();
    assert.equal(breaker.allows(probeAt + 1), true);
  });
});

describe('stragglers', () => {
  test('a result from a request admitted before the probe does not decide the circuit', () => {
    const breaker = opened();
    const probeAt = T0 + options.cooldownMs;
    assert.equal(breaker.allows(probeAt), true, 'the probe');
    // a slow request let through before the circuit opened finishes now
    breaker.record(true, probeAt + 5, T0 - 100);
    assert.equal(breaker.allows(probeAt + 5), false, 'still waiting for the probe');
    breaker.record(false, probeAt + 6, T0 - 100);
    assert.equal(breaker.state(probeAt + 6), 'half-open', 'a straggler failure does not reopen it either');
    breaker.record(true, probeAt + 10, probeAt);
    assert.equal(breaker.state(probeAt + 10), 'closed', 'the probe itself closes it');
  });
});
