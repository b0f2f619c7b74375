import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { costOfUnits, NANO_PER_USD, nanoToUsd, usdNumberText, usdString, usdStringOfNumber, usdToNano } from '../../src/core/money.ts';

describe('usdToNano', () => {
  test('decimal amounts that are inexact in binary convert exactly', () => {
    // 0.1 * 1e9 is 100000000.00000001 in floating point
    assert.equal(usdToNano(0.1), 100_000_000);
    assert.equal(usdToNano(0.3), 300_000_000);
    assert.equal(usdToNano(1.1), 1_100_000_000);
    assert.equal(usdToNano(0.15), 150_000_000);
    assert.equal(usdToNano(0.075), 75_000_000);
    assert.equal(usdToNano(25), 25 * NANO_PER_USD);
    assert.equal(usdToNano(0.000000001), 1);
    assert.equal(usdToNano(0), 0);
  });

  test('rounds to the nearest nano-dollar, halves away from zero', () => {
    assert.equal(usdToNano(1e-10), 0);
    assert.equal(usdToNano(4e-10), 0);
    assert.equal(usdToNano(6e-10), 1);
    assert.equal(usdToNano(5e-10), 1);
    assert.equal(usdToNano(1.5e-9), 2);
    // 2.5e-9 * 1e9 is 2.4999999999999996 in floating point: still a half
    assert.equal(usdToNano(2.5e-9), 3);
  });

  test('negative amounts are the exact negation of the positive ones (a correction undoes a credit)', () => {
    for (const usd of [0.1, 1.1, 25, 2.5e-9, 5e-10, 1.5e-9, 1e-10, 0.000000001, 123.456789012]) {
      const positive = usdToNano(usd);
      const negative = usdToNano(-usd);
      assert.equal(positive + negative, 0, `${usd}: ${positive} + ${negative}`);
    }
    assert.equal(usdToNano(-0.1), -100_000_000);
    assert.equal(usdToNano(-2.5e-9), -3);
    // never a negative zero (which strict equality tells apart from 0)
    assert.equal(usdToNano(-1e-10), 0);
    assert.equal(Object.is(usdToNano(-4e-10), -0), false);
  });

  test('refuses amounts whose nano count is not an exact JS integer, and non-finite values', () => {
    const maxUsd = Math.floor(Number.MAX_SAFE_INTEGER / NANO_PER_USD);
    assert.equal(usdToNano(maxUsd), maxUsd * NANO_PER_USD);
    assert.ok(Number.isSafeInteger(usdToNano(maxUsd)));
    assert.throws(() => usdToNano(maxUsd + 1), RangeError);
    assert.throws(() => usdToNano(-(maxUsd + 1)), RangeError);
    assert.throws(() => usdToNano(Number.NaN), RangeError);
    assert.throws(() => usdToNano(Number.POSITIVE_INFINITY), RangeError);
  });

  test('nanoToUsd is the inverse on whole nano amounts', () => {
    assert.equal(nanoToUsd(100_000_000), 0.1);
    assert.equal(nanoToUsd(-1_100_000_000), -1.1);
    for (const usd of [0.1, 0.15, 0.6, 7.25, 0.000000001]) assert.equal(nanoToUsd(usdToNano(usd)), usd);
  });
});

describe('costOfUnits', () => {
  test('prices per million units, rounded half up to whole nano-dollars', () => {
    // 1000 tokens at $0.15/Mtok (150_000_000 nano per million) = 150_000 nano
    assert.equal(costOfUnits([[1000, 150_000_000]]), 150_000);
    assert.equal(costOfUnits([[1, 500_000]]), 1); // 0.5 → 1
    assert.equal(costOfUnits([[1, 499_999]]), 0); // 0.499999 → 0
    assert.equal(costOfUnits([[3, 500_000]]), 2); // 1.5 → 2
    assert.equal(costOfUnits([]), 0);
    assert.equal(costOfUnits([[0, 150_000_000], [10, 0]]), 0);
  });

  test('parts are summed before the single rounding', () => {
    // each part alone is 0.4 nano (rounds to 0); together 0.8 → 1
    assert.equal(costOfUnits([[1, 400_000]]), 0);
    assert.equal(costOfUnits([[1, 400_000], [1, 400_000]]), 1);
    // 3 × 0.3 = 0.9 → 1, not 3 × 0
    assert.equal(costOfUnits([[1, 300_000], [1, 300_000], [1, 300_000]]), 1);
    // input + cached + output of a realistic request: 600×150 + 400×75 + 100×600 nano
    assert.equal(costOfUnits([[600, 150_000_000], [400, 75_000_000], [100, 600_000_000]]), 180_000);
  });

  test('fractional quantities are rounded to whole units first', () => {
    assert.equal(costOfUnits([[2.4, 1_000_000]]), 2);
    assert.equal(costOfUnits([[2.6, 1_000_000]]), 3);
  });

  test('exact beyond 2^53: products that floating point would round wrongly', () => {
    // 229_605_042 × 37_650_295_101 = 8_644_697_587_977_499_242 exactly (> 2^63 even),
    // i.e. 8_644_697_587_977.499242 nano → 8_644_697_587_977. Plain doubles give …978.
    const quantity = 229_605_042;
    const rate = 37_650_295_101;
    assert.equal(Math.round((quantity * rate) / 1e6), 8_644_697_587_978, 'the floating-point result this guards against');
    assert.equal(costOfUnits([[quantity, rate]]), 8_644_697_587_977);
    // a large but realistic request on an expensive model: 2M tokens at $60/Mtok = $120
    assert.equal(costOfUnits([[2_000_000, usdToNano(60)]]), usdToNano(120));
  });

  test('the same result as exact BigInt arithmetic, on both sides of 2^53', () => {
    const exact = (parts: [number, number][]): number => {
      let n = 0n;
      for (const [q, r] of parts) n += BigInt(Math.round(q)) * BigInt(r);
      return n === 0n ? 0 : Number((n + 500_000n) / 1_000_000n);
    };
    // a seeded generator (MINSTD): the same cases on every run
    let seed = 42;
    const next = (max: number) => {
      seed = (seed * 48_271) % 2_147_483_647;
      return Math.floor((seed / 2_147_483_647) * max);
    };
    const scales = [1_000, 1_000_000, 100_000_000, 10_000_000_000];
    for (let i = 0; i < 5_000; i++) {
      const parts: [number, number][] = [];
      for (let p = 0, n = 1 + next(4); p < n; p++) parts.push([next(scales[next(4)]!), next(scales[next(4)]!) * 7]);
      assert.equal(costOfUnits(parts), exact(parts), JSON.stringify(parts));
    }
    // each product is safe, their sum is not
    const half = Math.floor(Number.MAX_SAFE_INTEGER / 2) + 1;
    const parts: [number, number][] = [[1, half], [1, half], [1, 999_999]];
    assert.equal(costOfUnits(parts), exact(parts));
    // the sum is safe, adding the half million for rounding is not
    // (9_007_199_254_999_999 in a double is …255_000_000: one million more after the division)
    const edge: [number, number][] = [[1, 9_007_199_254_499_999]];
    assert.equal(costOfUnits(edge), 9_007_199_254);
    assert.equal(costOfUnits(edge), exact(edge));
  });
});

describe('usdString', () => {
  test('the exact decimal of the nano-dollars: at least two decimals, no float rounding, a minus sign', () => {
    assert.equal(usdString(12_500_000_000), '12.50');
    assert.equal(usdString(4_500), '0.0000045');
    assert.equal(usdString(-3 * NANO_PER_USD), '-3.00');
    assert.equal(usdString(0), '0.00');
    assert.equal(usdString(Number.MAX_SAFE_INTEGER), '9007199.254740991');
    assert.equal(usdString(-4_500), '-0.0000045');
    assert.equal(usdString(1_000_000_001), '1.000000001');
    assert.equal(usdString(999_999_999), '0.999999999');
    assert.equal(usdString(120_000_000), '0.12');
  });

  test('beyond 2^53 nano-dollars the digits stay exact', () => {
    assert.equal(usdString(2 ** 60), '1152921504.606846976');
    assert.equal(usdString(-(2 ** 60)), '-1152921504.606846976');
  });

  test('as a JSON number: the fewest digits, never an exponent, and it reads back as nanoToUsd', () => {
    assert.equal(usdNumberText(12_500_000_000), '12.5');
    assert.equal(usdNumberText(3 * NANO_PER_USD), '3');
    assert.equal(usdNumberText(150), '0.00000015');
    assert.equal(usdNumberText(0), '0');
    assert.equal(usdNumberText(-4_500), '-0.0000045');
    assert.equal(usdNumberText(2 ** 60), '1152921504.606846976');
    // every digit count, and large values where the double rounds
    const samples = [1, 7, 99, 123_456, 999_999_999, 1_000_000_001, 987_654_321_123, Number.MAX_SAFE_INTEGER];
    for (let n = 1; n < 1e15; n = Math.floor(n * 3.7) + 1) samples.push(n);
    for (const nano of samples) assert.equal(JSON.parse(usdNumberText(nano)), nanoToUsd(nano), `nano ${nano}`);
  });

  test('a price stored as a USD number reads the same way', () => {
    assert.equal(usdStringOfNumber(0.0375), '0.0375');
    assert.equal(usdStringOfNumber(2.5), '2.50');
  });
});
