/**
 * Money is an integer count of nano-dollars (1 USD = 1e9 units): small enough that one token of
 * the cheapest model costs more than zero, large enough that a balance of up to ~9 million USD
 * stays an exact JavaScript integer. Prices are stored as nano-dollars per million units, so a
 * price such as $0.0375 per million tokens is still an integer.
 */

export const NANO_PER_USD = 1_000_000_000;
const MAX_SAFE_USD = Math.floor(Number.MAX_SAFE_INTEGER / NANO_PER_USD);

export type Nano = number;

/** Converts a USD amount (JSON number) to nano-dollars, rounding to the nearest unit. */
export function usdToNano(usd: number): Nano {
  if (!Number.isFinite(usd) || Math.abs(usd) > MAX_SAFE_USD) throw new RangeError(`amount out of range: ${usd}`);
  // toFixed(3) avoids binary-float noise such as 0.1 * 1e9 = 100000000.00000001; halves round
  // away from zero, so that usdToNano(-x) === -usdToNano(x) (a correction undoes a credit exactly)
  const nano = Math.round(Number((Math.abs(usd) * NANO_PER_USD).toFixed(3)));
  return usd < 0 && nano !== 0 ? -nano : nano;
}

export function nanoToUsd(nano: Nano): number {
  return nano / NANO_PER_USD;
}

/**
 * Exact cost of `quantities[i]` units at `ratesPerMillion[i]` nano-dollars per million units,
 * summed before a single rounding (half up) to whole nano-dollars. BigInt because
 * tokens × rate can pass 2^53 for large requests on expensive models.
 */
export function costOfUnits(parts: ReadonlyArray<readonly [quantity: number, ratePerMillion: Nano]>): Nano {
  let numerator = 0n;
  for (const [quantity, rate] of parts) {
    if (quantity === 0 || rate === 0) continue;
    numerator += BigInt(Math.round(quantity)) * BigInt(rate);
  }
  if (numerator === 0n) return 0;
  const million = 1_000_000n;
  const rounded = (numerator + million / 2n) / million;
  return Number(rounded);
}
