import { randomBytes, randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const byte of bytes) {
      if (byte >= 248) continue; // 248 = 62 * 4: drop the biased tail
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Prefixed identifier for stored rows, e.g. `acct_3fZ…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}

const RANDOM_BYTES_PER_ID = 10;
const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;

/**
 * Request identifiers are generated on every request and key the journal and usage rows:
 * 12 hex digits of the millisecond clock, then 20 of randomness (80 bits) from a pooled buffer
 * refilled 4 KiB at a time (one flat hex string per id; `randomUUID` built its string from 16
 * concatenations, ~1 KB of garbage per request).
 * Time order keeps each flush's inserts at the right edge of the request-id indexes; random ids
 * scattered them over the whole B-tree, writing a page per row (2.5× the flush's CPU, growing
 * with the table).
 */
export function newRequestId(): string {
  if (randomOffset + RANDOM_BYTES_PER_ID > randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  const random = randomPool.toString('hex', randomOffset, randomOffset + RANDOM_BYTES_PER_ID);
  randomOffset += RANDOM_BYTES_PER_ID;
  return `req_${clockHex(Date.now())}${random}`;
}

const LOW_BITS = 2 ** 24;

/**
 * The millisecond clock as 12 hex digits. A clock past 2^31 is a double, which `toString(16)`
 * formats through V8's floating-point radix path (~2 thousand instructions a request); its two
 * 24-bit halves are small integers, formatted directly.
 */
export function clockHex(ms: number): string {
  const high = Math.floor(ms / LOW_BITS);
  const low = ms - high * LOW_BITS;
  return high.toString(16).padStart(6, '0') + low.toString(16).padStart(6, '0');
}

/** A client API key: `sk-` followed by 48 random base62 characters (~285 bits). */
export function newApiKey(): string {
  return `sk-${randomBase62(48)}`;
}
