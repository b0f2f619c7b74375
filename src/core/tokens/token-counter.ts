import { o200k } from './o200k.ts';

/**
 * The o200k tables take ~0.3 s of CPU and ~20 MB of heap to build: they are built by the first
 * count (src/core/tokens/o200k.ts), not at import, where they were a third of the start-up. A
 * plain chat whose vendor reports usage never needs them; a prompt charged for a client that left
 * before the answer does.
 */
export const tokenizer = (): ((text: string) => number) => o200k().countTokens;

/** Counts the tokens of one text; the dialects' prompt walkers take one so that the counting can be done elsewhere. */
export type TextCounter = (text: string) => number;

/**
 * The tokenizer's BPE is quadratic (or worse) in the length of one pre-token, and a run without
 * whitespace is one pre-token: 160k such characters took 5 s in one call. No call sees more
 * than this many characters, so a count is linear in the text (256: ~1 µs a Latin character,
 * ~6 µs a CJK one; 1024 took four times that).
 */
export const CHUNK_CHARS = 256;
/**
 * Past this many characters a text is not tokenised at all: its UTF-8 byte length is the bound
 * (every o200k token is at least one byte).
 */
export const BYTE_BOUND_CHARS = 256 * 1024;

/**
 * Local token counts (o200k_base). Used for the reservation's upper bound and to bill a
 * stream whose vendor usage never arrived. Exact for OpenAI's current models (but where a long
 * run without whitespace had to be cut, which adds about a token per cut), an estimate for
 * other vendors' tokenizers.
 */
export function countTextTokens(text: string): number {
  tokenizerUse.chars += text.length <= BYTE_BOUND_CHARS ? text.length : 0;
  if (text.length <= CHUNK_CHARS) return text.length === 0 ? 0 : tokenizer()(text);
  if (text.length > BYTE_BOUND_CHARS) return byteBound(text);
  let total = 0;
  for (let start = 0; start < text.length; ) {
    const end = chunkEnd(text, start);
    total += tokenizer()(text.slice(start, end));
    start = end;
  }
  return total;
}

/**
 * Characters tokenised on this thread plus those sent to the tokenizer thread: what admission
 * saves a refused request is visible here (tests read it).
 */
export const tokenizerUse = { chars: 0 };

/** The pieces `countTextTokens` hands the tokenizer one by one (for tests; the count itself does not allocate them). */
export function tokenizerPieces(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = chunkEnd(text, start);
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** UTF-8 bytes: an upper bound of any text's token count. */
export const byteBound = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Where the chunk that starts at `start` ends: in its second half, before a space that follows a
 * letter or digit (the tokenizer's own word boundary: the count is unchanged), else at the start
 * of a whitespace run (a newline after punctuation may cost a token), else — a run without
 * whitespace, or whitespace only — at the chunk's length. Each chunk is at least half a chunk
 * long and each character is looked at about once: linear.
 */
function chunkEnd(text: string, start: number): number {
  const limit = start + CHUNK_CHARS;
  if (limit >= text.length) return text.length;
  let runStart = 0;
  for (let i = limit; i > start + CHUNK_CHARS / 2; i--) {
    const c = text.charCodeAt(i);
    if (!isSpace(c)) continue;
    const before = text.charCodeAt(i - 1);
    if (c === 32 && isAlnum(before)) return i;
    if (runStart === 0 && !isSpace(before)) runStart = i;
  }
  if (runStart !== 0) return runStart;
  // never between the two halves of a surrogate pair (an emoji would count as two replacement characters)
  const c = text.charCodeAt(limit);
  return c >= 0xdc00 && c <= 0xdfff ? limit - 1 : limit;
}

const isAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
// the tokenizer's \s for the characters that matter here: ASCII whitespace and the common Unicode spaces
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029;

// OpenAI's published accounting: ~3 tokens of framing per message plus 3 to prime the reply.
const PER_MESSAGE = 4;
export const REPLY_PRIMER = 3;
/** A high-detail 2048×2048 image costs 765 tokens on gpt-4o; reserve a little above that. */
export const IMAGE_ALLOWANCE = 1_105;
/** Audio and files cannot be counted without decoding them; 1 token per 4 base64 bytes bounds them. */
const base64Allowance = (data: string) => Math.ceil(data.length / 4);

export function countChatPromptTokens(body: { messages?: unknown; tools?: unknown; functions?: unknown }, count: TextCounter = countTextTokens): number {
  let total = REPLY_PRIMER;
  if (Array.isArray(body.messages)) {
    for (const message of body.messages as Array<Record<string, unknown>>) {
      total += PER_MESSAGE;
      if (typeof message.name === 'string') total += count(message.name);
      total += countContentTokens(message.content, count);
      if (message.tool_calls !== undefined) total += count(JSON.stringify(message.tool_calls));
      if (message.function_call !== undefined) total += count(JSON.stringify(message.function_call));
    }
  }
  if (body.tools !== undefined) total += count(JSON.stringify(body.tools));
  if (body.functions !== undefined) total += count(JSON.stringify(body.functions));
  return total;
}

function countContentTokens(content: unknown, count: TextCounter): number {
  if (typeof content === 'string') return count(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content as Array<Record<string, unknown>>) {
    switch (part.type) {
      case 'text':
        total += count(String(part.text ?? ''));
        break;
      case 'image_url':
        total += IMAGE_ALLOWANCE;
        break;
      case 'input_audio':
        total += base64Allowance(String((part.input_audio as { data?: string } | undefined)?.data ?? ''));
        break;
      case 'file':
        total += base64Allowance(String((part.file as { file_data?: string } | undefined)?.file_data ?? ''));
        break;
      default:
        total += count(JSON.stringify(part));
    }
  }
  return total;
}

/** Legacy completions: `prompt` may be a string, strings, or token arrays. */
export function countPromptTokens(prompt: unknown, count: TextCounter = countTextTokens): number {
  if (typeof prompt === 'string') return count(prompt);
  if (!Array.isArray(prompt)) return 0;
  let total = 0;
  for (const item of prompt) {
    if (typeof item === 'string') total += count(item);
    else if (typeof item === 'number') total += 1;
    else if (Array.isArray(item)) total += item.length;
  }
  return total;
}
