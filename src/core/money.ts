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

/** USD as a JSON number (the admin API's amounts): exact to the cent, a float beyond. */
export function nanoToUsd(nano: Nano): number {
  return nano / NANO_PER_USD;
}

/**
 * USD as an exact decimal string from integer nano-dollars ("12.50", "0.0000045", "-3.00"): the
 * console's amounts, the ledger's own numbers, never a float's rounding of them (its pages round
 * to the cent for people and show this on hover).
 */
export function usdString(nano: Nano): string {
  return usdDecimal(nano, 2);
}

/**
 * The same exact decimal with as few digits as it takes ("12", "0.5", "0.0000045"): a JSON number
 * that reads back as `nanoToUsd(nano)` (both are the double nearest the same decimal), without the
 * float's text (`1.5e-7`) or its conversion.
 */
export function usdNumberText(nano: Nano): string {
  return usdDecimal(nano, 0);
}

/** `minDecimals`: the fraction is padded with zeros to at least this many digits (none: no point either). */
function usdDecimal(nano: Nano, minDecimals: number): string {
  const sign = nano < 0 ? '-' : '';
  const abs = Math.abs(nano);
  let whole: string;
  let fraction: string;
  // every answer's header and usage carry one: integer arithmetic, exact on safe integers (`%` on
  // doubles is exact, and the whole part divides exactly), BigInt only beyond them
  if (Number.isSafeInteger(abs)) {
    const fractionNano = abs % NANO_PER_USD;
    whole = String((abs - fractionNano) / NANO_PER_USD);
    fraction = String(fractionNano);
  } else {
    const big = BigInt(abs);
    const scale = BigInt(NANO_PER_USD);
    whole = (big / scale).toString();
    fraction = (big % scale).toString();
  }
  const digits = fraction.padStart(9, '0');
  let end = digits.length;
  while (end > minDecimals && digits.charCodeAt(end - 1) === 0x30) end--;
  return end === 0 ? sign + whole : `${sign}${whole}.${digits.slice(0, end)}`;
}

/** A USD amount as stored in a price table (a number) in the same exact string form. */
export function usdStringOfNumber(value: number): string {
  return usdString(Math.round(value * NANO_PER_USD));
}

/** How a view shows money: `nanoToUsd` (admin API) or `usdString` (console). */
export type MoneyFormat<T> = (nano: Nano) => T;

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
