import { invalidRequest } from '../../core/errors.ts';
import type { ConsoleContext } from '../context.ts';
import { usdString } from '../../core/money.ts';

export function normaliseCode(code: string): string {
  return code.trim().toUpperCase().replace(/\s+/g, '');
}

export function maskCode(code: string): string {
  return `${code.slice(0, 7)}…${code.slice(-4)}`;
}

/**
 * Claims the code (one UPDATE: of two racing redemptions one wins) and credits the account
 * with a journal entry keyed by the code, so a code can never credit twice.
 */
export async function redeemCode(ctx: ConsoleContext, accountId: string, code: string) {
  const claimed = await ctx.codes.claim(normaliseCode(code), accountId, Date.now());
  if (!claimed) throw invalidRequest('This code is not valid: it may be mistyped, used, revoked or expired.', 'code', 'invalid_code');
  const deps = ctx.deps;
  deps.ledger.adjust(accountId, claimed.amountNano, 'redemption', `redeem:${claimed.id}`, `Code ${maskCode(claimed.code)}`);
  await deps.sync.now();
  return { amount_usd: usdString(claimed.amountNano), balance_usd: usdString(deps.ledger.balance(accountId) ?? 0) };
}
