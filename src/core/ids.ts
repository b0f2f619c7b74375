import { randomBytes, randomUUID } from 'node:crypto';

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

/**
 * Request identifiers are generated on every request and key the journal and usage rows:
 * 12 hex digits of the millisecond clock, then 20 of a random UUID (74 random bits; randomUUID
 * is pooled and cheap).
 * Time order keeps each flush's inserts at the right edge of the request-id indexes; random ids
 * scattered them over the whole B-tree, writing a page per row (2.5× the flush's CPU, growing
 * with the table).
 */
export function newRequestId(): string {
  return `req_${Date.now().toString(16).padStart(12, '0')}${randomUUID().replaceAll('-', '').slice(12)}`;
}

/** A client API key: `sk-` followed by 48 random base62 characters (~285 bits). */
export function newApiKey(): string {
  return `sk-${randomBase62(48)}`;
}
