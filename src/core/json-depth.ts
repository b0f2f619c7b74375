/** Arrays and objects a JSON body (or a realtime event) may nest: far above any real request, far below a stack's reach. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Bytes of a string looked at one by one before Buffer#indexOf takes over: keys and short values end sooner than a native call starts. */
const INLINE_SCAN = 24;

/** The next quote at or after `from`, or -1. */
function nextQuote(bytes: Buffer, from: number): number {
  const stop = Math.min(bytes.length, from + INLINE_SCAN);
  for (let j = from; j < stop; j++) if (bytes[j] === QUOTE) return j;
  return stop === bytes.length ? -1 : bytes.indexOf(QUOTE, stop);
}

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, counting brackets outside
 * strings and stopping at the first level past it. Strings are skipped to their closing quote (a
 * native memchr past their first bytes: most of a model request's bytes are its texts), a quote
 * preceded by an odd run of backslashes being part of the string. UTF-8 continuation bytes are
 * never ASCII, so bytes are exact. Invalid JSON gives some answer; the parser that runs next
 * refuses it anyway.
 */
export function jsonDepthExceeds(bytes: Buffer, limit: number): boolean {
  let depth = 0;
  const length = bytes.length;
  for (let i = 0; i < length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      let end = nextQuote(bytes, i + 1);
      while (end > 0 && bytes[end - 1] === BACKSLASH) {
        let k = end - 2;
        while (k > i && bytes[k] === BACKSLASH) k--;
        // end - 1 - k backslashes: an even run escapes itself, and the quote closes the string
        if ((end - 1 - k) % 2 === 0) break;
        end = nextQuote(bytes, end + 1);
      }
      if (end < 0) return false;
      i = end;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
