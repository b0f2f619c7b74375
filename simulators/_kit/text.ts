// Deterministic reply text and token arithmetic shared by every family's simulator.
import { o200k } from '../../src/core/tokens/o200k.ts';

// Prompts are user data: text that looks like a special token (e.g. "<|endoftext|>") is plain text.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

// Multi-byte on purpose (2-, 3- and 4-byte UTF-8) so every stream exercises UTF-8 handling.
const FILLER_WORDS = 'this simulated reply says héllo 世界 🙂 and keeps going with deterministic words until the stream is long enough'.split(' ');

export function countTokens(text: string): number {
  return text === '' ? 0 : o200k().encode(text, PLAIN_TEXT).length;
}

/** Text of token ids; undefined when an id is outside the vocabulary. */
export function decodeTokens(tokens: readonly number[]): string | undefined {
  try {
    return o200k().decode(tokens);
  } catch {
    return undefined;
  }
}

/** First `maxChars` code points of `text` with whitespace collapsed (never splits a surrogate pair). */
export function snippet(text: string, maxChars: number): string {
  return Array.from(text.replace(/\s+/g, ' ').trim()).slice(0, maxChars).join('');
}

/** `opening`, then the filler sentence cycled until the text has at least `minWords` words. */
export function withFiller(opening: string, minWords: number): string {
  const openingWords = opening.split(/\s+/).filter((word) => word !== '').length;
  const fillerCount = Math.max(FILLER_WORDS.length, minWords - openingWords);
  const filler = Array.from({ length: fillerCount }, (_, i) => FILLER_WORDS[i % FILLER_WORDS.length]);
  return `${opening} ${filler.join(' ')}.`;
}

/** `opening` then filler, exactly `tokens` tokens in all (the long-answer scenario). */
export function textOfTokens(opening: string, tokens: number): string {
  return finishText(withFiller(opening, tokens), [], tokens).text;
}

/** The output cap a simulated model applies: none when the scenario makes it overrun. */
export function capOf(plan: { ignoreCap?: boolean }, maxTokens: number | undefined): number | undefined {
  return plan.ignoreCap ? undefined : maxTokens;
}

export type TextFinishReason = 'stop' | 'length';

export interface FinishedText {
  text: string;
  tokens: number;
  finishReason: TextFinishReason;
}

/**
 * Applies what a real model does while generating: stop at the first stop sequence (not included),
 * or run out of `maxTokens` (→ "length"). A stop sequence beyond the token budget never matters,
 * so cutting at the stop sequence first and then truncating gives the same answer.
 */
export function finishText(fullText: string, stop: readonly string[], maxTokens: number | undefined): FinishedText {
  let text = fullText;
  for (const sequence of stop) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0) text = text.slice(0, at);
  }
  const tokens = o200k().encode(text, PLAIN_TEXT);
  if (maxTokens === undefined || tokens.length <= maxTokens) {
    return { text, tokens: tokens.length, finishReason: 'stop' };
  }
  // Drop tokens that would end inside a multi-byte character rather than emit U+FFFD.
  let kept = maxTokens;
  let truncated = o200k().decode(tokens.slice(0, kept));
  while (kept > 0 && truncated.endsWith('\uFFFD') && !text.startsWith(truncated)) {
    kept--;
    truncated = o200k().decode(tokens.slice(0, kept));
  }
  return { text: truncated, tokens: kept, finishReason: 'length' };
}

/**
 * Splits text on word boundaries into at most `maxChunks` pieces of near-equal word counts whose
 * concatenation is exactly `text` (whitespace stays attached to the word before it).
 */
export function splitIntoChunks(text: string, maxChunks: number): string[] {
  if (text === '') return [];
  const words = text.split(/(?<=\s)(?=\S)/);
  const count = Math.max(1, Math.min(maxChunks, words.length));
  const base = Math.floor(words.length / count);
  const extra = words.length % count;
  const chunks: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const size = base + (i < extra ? 1 : 0);
    chunks.push(words.slice(at, at + size).join(''));
    at += size;
  }
  return chunks;
}

/** Splits a string into pieces of at most `size` code points (tool-call argument fragments). */
export function splitBySize(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(''));
  return pieces;
}
