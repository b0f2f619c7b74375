import { randomInt } from 'node:crypto';
import { invalidRequest } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { usdString, usdToNano } from '../../core/money.ts';
import type { ConsoleContext } from '../context.ts';
import { statusOf, type RedemptionCode } from '../../store/repositories/redemption-codes.ts';

// Crockford's base32 without I, L, O, U: nothing to misread when typed from paper
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `MG-XXXX-XXXX-XXXX-XXXX`: 80 random bits. */
export function newRedemptionCode(): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let group = '';
    for (let i = 0; i < 4; i++) group += ALPHABET[randomInt(ALPHABET.length)];
    groups.push(group);
  }
  return `MG-${groups.join('-')}`;
}

export function codeView(code: RedemptionCode) {
  return {
    id: code.id,
    code: code.code,
    batch: code.batch,
    amount_usd: usdString(code.amountNano),
    note: code.note,
    status: statusOf(code),
    expires_at: code.expiresAt === null ? null : new Date(code.expiresAt).toISOString(),
    redeemed_by: code.redeemedBy,
    redeemed_at: code.redeemedAt === null ? null : new Date(code.redeemedAt).toISOString(),
    created_at: new Date(code.createdAt).toISOString(),
  };
}

export async function createCodeBatch(ctx: ConsoleContext, input: { amount_usd: number; count: number; expires_at?: string | null | undefined; note?: string | undefined }) {
  const amountNano = usdToNano(input.amount_usd);
  if (amountNano <= 0) throw invalidRequest('amount_usd must be more than zero', 'amount_usd');
  const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null;
  if (expiresAt !== null && (Number.isNaN(expiresAt) || expiresAt <= Date.now())) throw invalidRequest('expires_at must be a future date-time', 'expires_at');
  const batch = newId('batch');
  const now = Date.now();
  const codes = Array.from({ length: input.count }, () => ({
    id: newId('code'),
    code: newRedemptionCode(),
    batch,
    amountNano,
    note: input.note?.trim() || null,
    expiresAt,
    createdAt: now,
  }));
  await ctx.codes.insertMany(codes);
  return { batch, codes: codes.map((c) => codeView({ ...c, revoked: false, redeemedBy: null, redeemedAt: null })) };
}
