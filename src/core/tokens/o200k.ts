import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';

const require = createRequire(import.meta.url);
const utf8 = new TextDecoder('utf8', { fatal: true });

let encoding: GptEncoding | undefined;

/**
 * Words the tokenizer had to merge, with their tokens, kept for the next time they come.
 * gpt-tokenizer keeps 100,000 by default, ~310 B each, for the life of the thread (the event loop
 * and the tokenizer thread alike): ~30 MB once full; 5 MB of English prose and code counted twice
 * left 19,425 (6 MB). Kept to 2,000 (0.9 MB), the same text counted ~5 % slower: its second pass
 * found every word in the unbounded cache. Most words are one token and never reach the cache.
 */
export const MERGE_CACHE_ENTRIES = 2_000;

/**
 * gpt-tokenizer's o200k_base encoding, built on first use (~0.3 s of CPU) from the package's own
 * tiktoken file (`data/o200k_base.tiktoken`: one "<base64 bytes> <rank>" line a token) instead of
 * its 2.4-MB JavaScript module of 200,000 string literals. The tables are the same (~20 MB live);
 * compiling the module kept ~20 MB more resident for the life of the process (64 → 44 MB of RSS in
 * a fresh process). The ESM build is required by path: require() of an ES module is synchronous.
 */
export function o200k(): GptEncoding {
  if (encoding) return encoding;
  const { GptEncoding } = require(fileURLToPath(import.meta.resolve('gpt-tokenizer/GptEncoding'))) as typeof import('gpt-tokenizer/GptEncoding');
  const ranks = readRanks(readFileSync(fileURLToPath(import.meta.resolve('gpt-tokenizer/data/o200k_base.tiktoken')), 'latin1'));
  encoding = GptEncoding.getEncodingApi('o200k_base', () => ranks);
  encoding.setMergeCacheSize(MERGE_CACHE_ENTRIES);
  return encoding;
}

/** Whether this thread has built the tables (a count here costs ~1 µs, not ~0.2–0.3 s first). */
export const o200kBuilt = (): boolean => encoding !== undefined;

/**
 * A tiktoken rank file as the package's generator turns it into its modules: at each rank the
 * token's text where its bytes are UTF-8 that encodes back to the same bytes, else the bytes;
 * '' in a rank no token has.
 */
export function readRanks(file: string): (string | number[])[] {
  const ranks: (string | number[])[] = [];
  // every token decoded into one buffer (a Buffer apiece made the build half allocation and GC),
  // grown when a token's base64 could hold more bytes than it: Buffer.write would cut it short
  let scratch = Buffer.alloc(1024);
  for (let start = 0; start < file.length; ) {
    const newline = file.indexOf('\n', start);
    const end = newline === -1 ? file.length : newline;
    const space = file.indexOf(' ', start);
    const rank = space > start && space < end ? Number(file.slice(space + 1, end)) : Number.NaN;
    if (Number.isInteger(rank) && rank >= 0) {
      const base64 = file.slice(start, space);
      if (base64.length * 0.75 > scratch.length) scratch = Buffer.alloc(Math.ceil(base64.length * 0.75));
      const length = scratch.write(base64, 'base64');
      while (ranks.length < rank) ranks.push('');
      ranks[rank] = asText(scratch, length) ?? [...scratch.subarray(0, length)];
    }
    start = end + 1;
  }
  return ranks;
}

/** The text of buffer[0, length) if those bytes are UTF-8 (as the package's generator decides), else undefined. */
function asText(buffer: Buffer, length: number): string | undefined {
  // the common case without a decoder call: no replacement character means the bytes were UTF-8
  // (a leading BOM the decoder below would drop, and a real U+FFFD, go the long way)
  const text = buffer.toString('utf8', 0, length);
  if (!text.includes('\uFFFD') && text.charCodeAt(0) !== 0xfeff) return text;
  try {
    const decoded = utf8.decode(buffer.subarray(0, length));
    return Buffer.byteLength(decoded) === length ? decoded : undefined;
  } catch {
    return undefined;
  }
}
