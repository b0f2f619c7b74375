import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Router, type RouterOptions } from '../../src/pipeline/router.ts';
import type { ProviderRecord } from '../../src/store/repositories/providers.ts';
import { createPrng } from '../../simulators/_kit/http.ts';

const options: RouterOptions = {
  timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 3000 },
  breaker: { windowMs: 1000, minFailures: 2, failureRatio: 0.5, cooldownMs: 1000 },
  maxConnections: 8,
};

let seq = 0;
function provider(id: string, patch: Partial<ProviderRecord> = {}): ProviderRecord {
  seq++;
  return {
    id,
    name: id,
    type: 'openai',
    baseUrl: `http://127.0.0.1:1/${id}/v1`,
    apiKey: 'k',
    models: ['gpt-4o-mini'],
    modelMap: {},
    priority: 0,
    weight: 1,
    enabled: true,
    settings: {},
    deleted: false,
    seq,
    createdAt: 0,
    updatedAt: 0,
    ...patch,
  };
}

/** A `random` that returns the given values in turn. */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => {
    const value = values[i % values.length]!;
    i++;
    return value;
  };
}

const ids = (router: Router, model = 'gpt-4o-mini') => router.candidates(model, 'chat').map((c) => c.provider.record.id);

describe('Router.candidates', () => {
  test('higher priority first, whatever the random draw', () => {
    const router = new Router(options, sequence(0.99, 0.01, 0.5));
    router.apply(provider('low', { priority: -1 }));
    router.apply(provider('high', { priority: 10 }));
    router.apply(provider('mid', { priority: 0 }));
    for (let i = 0; i < 20; i++) assert.deepEqual(ids(router), ['high', 'mid', 'low']);
  });

  test('among equal priorities the order follows the injected random draw', () => {
    // with equal weights the larger random value goes first
    const first = new Router(options, sequence(0.9, 0.1));
    first.apply(provider('a'));
    first.apply(provider('b'));
    assert.deepEqual(ids(first), ['a', 'b']);
    const second = new Router(options, sequence(0.1, 0.9));
    second.apply(provider('a'));
    second.apply(provider('b'));
    assert.deepEqual(ids(second), ['b', 'a']);
  });

  test('weights share the first place in proportion (deterministic PRNG, 20 000 draws)', () => {
    const router = new Router(options, createPrng(42));
    router.apply(provider('heavy', { weight: 3 }));
    router.apply(provider('light', { weight: 1 }));
    router.apply(provider('backup', { weight: 5, priority: -5 }));
    const firsts = new Map<string, number>();
    const draws = 20_000;
    for (let i = 0; i < draws; i++) {
      const order = ids(router);
      assert.equal(order.length, 3);
      assert.equal(order[2], 'backup', 'a lower priority never moves up, whatever its weight');
      firsts.set(order[0]!, (firsts.get(order[0]!) ?? 0) + 1);
    }
    const heavyShare = (firsts.get('heavy') ?? 0) / draws;
    assert.ok(Math.abs(heavyShare - 0.75) < 0.02, `heavy went first ${heavyShare} of the time, expected ~0.75`);
    assert.equal((firsts.get('heavy') ?? 0) + (firsts.get('light') ?? 0), draws);
  });

  test('weights among three equals: each is first about weight / total of the time', () => {
    const router = new Router(options, createPrng(7));
    router.apply(provider('w1', { weight: 1 }));
    router.apply(provider('w2', { weight: 2 }));
    router.apply(provider('w5', { weight: 5 }));
    const counts: Record<string, number> = { w1: 0, w2: 0, w5: 0 };
    const draws = 16_000;
    for (let i = 0; i < draws; i++) counts[ids(router)[0]!]!++;
    assert.ok(Math.abs(counts.w1! / draws - 1 / 8) < 0.02, JSON.stringify(counts));
    assert.ok(Math.abs(counts.w2! / draws - 2 / 8) < 0.02, JSON.stringify(counts));
    assert.ok(Math.abs(counts.w5! / draws - 5 / 8) < 0.02, JSON.stringify(counts));
  });

  test('disabled, deleted and unknown-family providers are never candidates', () => {
    const router = new Router(options, sequence(0.5));
    router.apply(provider('on'));
    router.apply(provider('off', { enabled: false, priority: 5 }));
    router.apply(provider('gone', { priority: 5 }));
    router.apply(provider('gone', { priority: 5, deleted: true }));
    router.apply(provider('alien', { type: 'no-such-family', priority: 5 }));
    assert.deepEqual(ids(router), ['on']);
    assert.equal(router.get('gone'), undefined);
    assert.equal(router.get('alien'), undefined);
    // re-enabling puts it back, with its priority
    router.apply(provider('off', { enabled: true, priority: 5 }));
    assert.deepEqual(ids(router), ['off', 'on']);
  });

  test('a removed provider drops its connection pool', () => {
    const gone: string[] = [];
    const router = new Router({ ...options, onProviderGone: (id) => gone.push(id) });
    router.apply(provider('p'));
    router.apply(provider('p', { deleted: true }));
    assert.deepEqual(gone, ['p']);
    assert.deepEqual(ids(router), []);
  });

  test('only providers listing the model serve it; model_map gives the upstream id', () => {
    const router = new Router(options, sequence(0.9, 0.1));
    router.apply(provider('mapped', { models: ['gpt-4o-mini', 'gpt-4o'], modelMap: { 'gpt-4o-mini': 'llama-3.1-8b' }, priority: 1 }));
    router.apply(provider('plain', { models: ['gpt-4o-mini'] }));
    const candidates = router.candidates('gpt-4o-mini', 'chat');
    assert.deepEqual(
      candidates.map((c) => [c.provider.record.id, c.upstreamModel]),
      [
        ['mapped', 'llama-3.1-8b'],
        ['plain', 'gpt-4o-mini'],
      ],
    );
    assert.deepEqual(router.candidates('gpt-4o', 'chat').map((c) => [c.provider.record.id, c.upstreamModel]), [['mapped', 'gpt-4o']]);
    assert.deepEqual(router.candidates('unknown-model', 'chat'), []);
    assert.equal(router.serves('gpt-4o'), true);
    assert.equal(router.serves('unknown-model'), false);
    assert.deepEqual(router.servedModels().sort(), ['gpt-4o', 'gpt-4o-mini']);
  });

  test('an edit keeps the health of the provider and applies the new routing data', () => {
    const router = new Router(options);
    router.apply(provider('p', { settings: { first_byte_timeout_ms: 77 } }));
    const before = router.get('p')!;
    assert.equal(before.upstream.timeouts.firstByteMs, 77);
    assert.equal(before.upstream.timeouts.connectMs, 1000);
    before.breaker.record(false, 1);
    before.breaker.record(false, 2);
    assert.equal(before.breaker.state(3), 'open');
    router.apply(provider('p', { models: ['gpt-4o'] }));
    const after = router.get('p')!;
    assert.equal(after.breaker, before.breaker);
    assert.equal(after.upstream.timeouts.firstByteMs, 2000);
    assert.deepEqual(ids(router), []);
    assert.deepEqual(ids(router, 'gpt-4o'), ['p']);
  });
});
