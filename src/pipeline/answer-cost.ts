import { usdNumberText, usdString } from '../core/money.ts';
import type { RequestOutcome } from './types.ts';
import { bufferView } from '../core/buffer-view.ts';

/**
 * The settled charge, told to the client (contract §4): `x-modelgate-cost` on a non-streamed
 * answer, `usage.cost` in the last usage object an answer writes, and `cost_estimated` when the
 * gateway counted the usage itself. Vendors and dialects never learn of it: their bytes get it
 * spliced in here, after settlement and before the last byte goes out.
 */

type Costed = Pick<RequestOutcome, 'costNano' | 'estimated'>;

/** USD as an exact decimal (no exponent): the same number as the body's `cost`. */
export function costHeaders(outcome: Costed): Record<string, string> {
  const cost = usdString(outcome.costNano);
  return outcome.estimated ? { 'x-modelgate-cost': cost, 'x-modelgate-cost-estimated': 'true' } : { 'x-modelgate-cost': cost };
}

/** The members added to a usage object, as JSON text: `cost` reads back as nanoToUsd(costNano). */
function costMembers(outcome: Costed): string {
  return `"cost":${usdNumberText(outcome.costNano)}${outcome.estimated ? ',"cost_estimated":true' : ''}`;
}

const USAGE_KEY = '"usage"';
const USAGE_KEY_BYTES = Buffer.from(USAGE_KEY);
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COLON = 0x3a;
const COMMA = 0x2c;
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Where the members go in the last `"usage": {…}` of JSON text (an answer, or the events of a
 * stream's trailer): the offset just inside its brace, and whether the object is empty; undefined
 * when there is none. Searched from the end, where vendors and dialects write usage; in JSON every
 * quote inside a string is escaped, so `"usage"` before a colon is a key wherever it stands.
 */
function usageSlot(at: number, code: (i: number) => number | undefined, length: number): { at: number; empty: boolean } | undefined {
  let before = at - 1;
  while (isSpace(code(before))) before--;
  const prev = code(before);
  if (prev !== OPEN_OBJECT && prev !== COMMA) return undefined;
  let i = at + USAGE_KEY.length;
  while (i < length && isSpace(code(i))) i++;
  if (code(i) !== COLON) return undefined;
  i++;
  while (i < length && isSpace(code(i))) i++;
  if (code(i) !== OPEN_OBJECT) return undefined;
  let next = i + 1;
  while (next < length && isSpace(code(next))) next++;
  return { at: i + 1, empty: code(next) === CLOSE_OBJECT };
}

/** The answer with the cost added to its last usage object (the answer itself when it has none). */
export function withCost(text: string, outcome: Costed): string;
export function withCost(text: string | Uint8Array, outcome: Costed): string | Uint8Array;
export function withCost(text: string | Uint8Array, outcome: Costed): string | Uint8Array {
  if (typeof text === 'string') {
    const key = text.lastIndexOf(USAGE_KEY);
    const slot = key < 0 ? undefined : usageSlot(key, (i) => text.charCodeAt(i), text.length);
    if (!slot) return text;
    return text.slice(0, slot.at) + costMembers(outcome) + (slot.empty ? '' : ',') + text.slice(slot.at);
  }
  const bytes = bufferView(text);
  const key = bytes.lastIndexOf(USAGE_KEY_BYTES);
  const slot = key < 0 ? undefined : usageSlot(key, (i) => bytes[i], bytes.length);
  if (!slot) return text;
  return Buffer.concat([bytes.subarray(0, slot.at), Buffer.from(costMembers(outcome) + (slot.empty ? '' : ',')), bytes.subarray(slot.at)]);
}
