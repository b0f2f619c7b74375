import { NANO_PER_USD, type Nano } from '../core/money.ts';

/**
 * USD as an exact decimal string from integer nano-dollars ("12.50", "0.0000045", "-3.00"):
 * the console shows the ledger's own numbers, never a float's rounding of them.
 */
export function usd(nano: Nano): string {
  const negative = nano < 0;
  const abs = BigInt(Math.abs(nano));
  const scale = BigInt(NANO_PER_USD);
  const whole = abs / scale;
  let fraction = (abs % scale).toString().padStart(9, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** A price in USD per unit as stored (number) to the same exact string form. */
export function usdOfNumber(value: number): string {
  return usd(Math.round(value * NANO_PER_USD));
}
