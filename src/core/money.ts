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

const MILLION = 1_000_000;

/**
 * An exact sum of quantity × rate (nano-dollars per million units), rounded once (half up) to
 * whole nano-dollars. Plain numbers while every product and partial sum is a safe integer (each
 * is exact then: the usual request, and nothing is allocated); BigInt from the first term that
 * passes 2^53 (large requests on expensive models).
 */
export class CostSum {
  private small = 0;
  private big: bigint | undefined;

  add(quantity: number, ratePerMillion: Nano): this {
    if (quantity === 0 || ratePerMillion === 0) return this;
    const units = Math.round(quantity);
    if (this.big === undefined) {
      const product = units * ratePerMillion;
      const sum = this.small + product;
      if (Number.isSafeInteger(product) && Number.isSafeInteger(sum)) {
        this.small = sum;
        return this;
      }
      // the sum so far is exact: carry it over
      this.big = BigInt(this.small);
    }
    this.big += BigInt(units) * BigInt(ratePerMillion);
    return this;
  }

  toNano(): Nano {
    if (this.big === undefined) {
      const shifted = this.small + MILLION / 2;
      // `%` is exact on doubles and truncates like BigInt division: the same result
      if (Number.isSafeInteger(shifted)) return (shifted - (shifted % MILLION)) / MILLION;
    }
    const million = BigInt(MILLION);
    return Number(((this.big ?? BigInt(this.small)) + million / 2n) / million);
  }
}

/** Exact cost of `parts` (quantity, nano-dollars per million units), one rounding: see CostSum. */
export function costOfUnits(parts: ReadonlyArray<readonly [quantity: number, ratePerMillion: Nano]>): Nano {
  const sum = new CostSum();
  for (const [quantity, rate] of parts) sum.add(quantity, rate);
  return sum.toNano();
}
