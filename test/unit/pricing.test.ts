import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { costOf, FREE, imagePrice, toPricing } from '../../src/core/pricing.ts';
import { emptyUsage, type Usage } from '../../src/core/usage.ts';

const usage = (u: Partial<Usage>): Usage => ({ ...emptyUsage(), ...u });

// gpt-4o-mini's default prices: 150 / 600 / 75 nano-dollars per token
const mini = toPricing({ input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075 });

describe('toPricing', () => {
  test('converts USD per million to integer nano per million; a missing cached price stays undefined', () => {
    assert.equal(mini.inputPerMtok, 150_000_000);
    assert.equal(mini.outputPerMtok, 600_000_000);
    assert.equal(mini.cachedInputPerMtok, 75_000_000);
    const noCache = toPricing({ input_per_mtok: 2.5, output_per_mtok: 10 });
    assert.equal(noCache.cachedInputPerMtok, undefined);
    assert.equal(noCache.perRequest, 0);
    // a price that is fractional in nano per token is still an integer per million
    assert.equal(toPricing({ input_per_mtok: 0.0375 }).inputPerMtok, 37_500_000);
  });
});

describe('costOf', () => {
  test('input and output tokens at their rates', () => {
    assert.equal(costOf(mini, usage({ inputTokens: 1000, outputTokens: 100 })), 1000 * 150 + 100 * 600);
    assert.equal(costOf(mini, usage({})), 0);
    assert.equal(costOf(FREE, usage({ inputTokens: 1_000_000, outputTokens: 1_000_000 })), 0);
  });

  test('cached prompt tokens (a subset of the input) are priced at the cached rate', () => {
    // 600 uncached × 150 + 400 cached × 75 + 100 output × 600
    assert.equal(costOf(mini, usage({ inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100 })), 90_000 + 30_000 + 60_000);
    // all cached
    assert.equal(costOf(mini, usage({ inputTokens: 1000, cachedInputTokens: 1000 })), 75_000);
  });

  test('cached tokens cost the input rate when the model has no cached price', () => {
    const noCache = toPricing({ input_per_mtok: 0.15, output_per_mtok: 0.6 });
    assert.equal(costOf(noCache, usage({ inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100 })), 1000 * 150 + 100 * 600);
  });

  test('a cached count above the input count is clamped: never more cached than input', () => {
    assert.equal(costOf(mini, usage({ inputTokens: 100, cachedInputTokens: 500 })), 100 * 75);
  });

  test('one rounding per request across the token parts', () => {
    // $0.0004/Mtok = 400_000 nano per million = 0.4 nano per token
    const tiny = toPricing({ input_per_mtok: 0.0004, output_per_mtok: 0.0004 });
    assert.equal(costOf(tiny, usage({ inputTokens: 1 })), 0);
    assert.equal(costOf(tiny, usage({ inputTokens: 1, outputTokens: 1 })), 1); // 0.8 → 1, not 0 + 0
  });

  test('per-request, per-second and per-character prices are added by unit kind', () => {
    const priced = toPricing({ input_per_mtok: 1, per_request: 0.001, per_second: 0.006, per_mchar: 15 });
    const u = usage({ inputTokens: 10, units: 2.5 });
    assert.equal(costOf(priced, u), 10 * 1000 + 1_000_000); // units ignored for kind "none"
    assert.equal(costOf(priced, u, 'seconds'), 10 * 1000 + 15_000_000 + 1_000_000);
    // $15 per million characters = 15_000 nano per character
    assert.equal(costOf(priced, usage({ units: 1000 }), 'characters'), 15_000_000 + 1_000_000);
  });
});

describe('imagePrice', () => {
  test('exact quality and size first, then the * fallbacks, undefined when unpriced', () => {
    const p = toPricing({ per_image: { hd: { '1024x1024': 0.08, '*': 0.12 }, '*': { '*': 0.04 } } });
    assert.equal(imagePrice(p, 'hd', '1024x1024'), 80_000_000);
    assert.equal(imagePrice(p, 'hd', '1792x1024'), 120_000_000);
    assert.equal(imagePrice(p, 'standard', '1024x1024'), 40_000_000);
    assert.equal(imagePrice(mini, 'hd', '1024x1024'), undefined);
  });
});
