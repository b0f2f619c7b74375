// One member of a JSON answer, read without parsing the rest. The gateway relays answers as the
// vendor's bytes and needs only their `usage`, which vendors write near the end; an embeddings
// answer for 2,048 inputs is ~66 MB of numbers, and parsing all of it (after decoding it into a
// string) held the event loop for ~200 ms on the benchmark VM — every other request waited.

import { bufferView } from '../../core/buffer-view.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** `"key"` as bytes, made once per key (a text needle is encoded on every search) */
const quotedKeys = new Map<string, Buffer>();
function quoted(key: string): Buffer {
  let bytes = quotedKeys.get(key);
  if (!bytes) quotedKeys.set(key, (bytes = Buffer.from(`"${key}"`)));
  return bytes;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** what a byte is to the bracket scan: most bytes of JSON are none of these, and skip on one table load */
const OTHER = 0;
const STRING = 1;
const OPENS = 2;
const CLOSES = 3;
const BYTE_KIND = new Uint8Array(256);
BYTE_KIND[QUOTE] = STRING;
BYTE_KIND[OPEN_OBJECT] = BYTE_KIND[OPEN_ARRAY] = OPENS;
BYTE_KIND[CLOSE_OBJECT] = BYTE_KIND[CLOSE_ARRAY] = CLOSES;

/**
 * Scans from `from` (outside any string) while the depth of nested objects and arrays stays at
 * or above zero; returns the offset of the first closing bracket that would take it below zero,
 * or -1 when the bytes end first. Strings are skipped with their escapes.
 */
function closingBracket(bytes: Buffer, from: number): number {
  const length = bytes.length;
  let depth = 0;
  for (let i = from; i < length; i++) {
    const kind = BYTE_KIND[bytes[i]!]!;
    if (kind === OTHER) continue;
    if (kind === STRING) {
      for (i++; i < length; i++) {
        const byte = bytes[i]!;
        if (byte === QUOTE) break;
        if (byte === BACKSLASH) i++;
      }
    } else if (kind === OPENS) {
      depth++;
    } else {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/**
 * The object or array value of `key` in the top-level object of a JSON document, taken from the
 * key's last occurrence (as `JSON.parse` keeps the last of duplicate keys) and parsed alone.
 * Undefined when the key is absent, its value is not an object or array, or that occurrence
 * cannot be shown to belong to the top-level object — the caller then parses the whole document.
 *
 * In JSON every quote inside a string is escaped, so the bytes `"key"` followed by `:` are a key
 * wherever they stand. It belongs to the top-level object when the object that holds it closes
 * at the document's last bracket: after its value, nothing closes but that bracket, followed
 * only by whitespace. What comes before the key is not looked at; the gateway relays it as the
 * vendor sent it.
 */
export function topLevelMemberFromEnd(raw: Uint8Array, key: string): unknown {
  const bytes = bufferView(raw);
  const at = bytes.lastIndexOf(quoted(key));
  if (at < 0) return undefined;
  let before = at - 1;
  while (isSpace(bytes[before])) before--;
  if (bytes[before] !== OPEN_OBJECT && bytes[before] !== COMMA) return undefined;

  let start = at + key.length + 2;
  while (isSpace(bytes[start])) start++;
  if (bytes[start] !== COLON) return undefined;
  start++;
  while (isSpace(bytes[start])) start++;
  if (bytes[start] !== OPEN_OBJECT && bytes[start] !== OPEN_ARRAY) return undefined;
  const end = closingBracket(bytes, start + 1);
  if (end < 0) return undefined;

  const holderEnd = closingBracket(bytes, end + 1);
  if (holderEnd < 0 || bytes[holderEnd] !== CLOSE_OBJECT) return undefined;
  for (let i = holderEnd + 1; i < bytes.length; i++) if (!isSpace(bytes[i])) return undefined;

  try {
    return JSON.parse(bytes.toString('utf8', start, end + 1)) as unknown;
  } catch {
    return undefined;
  }
}
