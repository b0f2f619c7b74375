import type { OffLoopCounter } from '../core/contracts/token-counter.ts';
import { o200kBuilt } from '../core/tokens/o200k.ts';
import { BYTE_BOUND_CHARS, byteBound, countTextTokens, tokenizerUse, type TextCounter } from '../core/tokens/token-counter.ts';
import { TokenThread } from './token-thread.ts';

/**
 * A body smaller than this is counted on the event loop, as it always was: at most ~16 ms of
 * tokenizer (Latin text; ~6 µs a CJK character, three bytes each). Larger ones are counted in the
 * tokenizer thread, or — past BYTE_BOUND_CHARS of text — not tokenised at all.
 */
export const OFF_LOOP_BYTES = 16 * 1024;

/** The counter of a request whose texts were too long to tokenise: each text's UTF-8 bytes, an upper bound. */
export const boundCounter: TextCounter = byteBound;

/**
 * A counter for one request's texts. `measure` walks the request and calls `count` once per
 * text (the dialects' prompt walkers). For a body under OFF_LOOP_BYTES it is not even called:
 * the counter is the inline one. Otherwise it is called once to collect the texts (the counts it
 * sees are 0 or 1, its result is ignored), which are then counted in the tokenizer thread — or,
 * past BYTE_BOUND_CHARS together, bounded by their bytes (`boundCounter`). `bodyBytes` NaN
 * (no Content-Length) counts as large.
 */
export function counterFor(measure: (count: TextCounter) => unknown, bodyBytes: number): TextCounter | Promise<TextCounter> {
  if (bodyBytes < OFF_LOOP_BYTES) return countTextTokens;
  const { unique, chars } = textsOf(measure);
  if (chars > BYTE_BOUND_CHARS) return boundCounter;
  if (chars < OFF_LOOP_BYTES) return countTextTokens;
  return countedInThread(unique, chars);
}

/**
 * A count nobody waits for: what a client that left is charged (its prompt, what reached it of
 * the answer). Counted inline once this thread has the o200k tables; before that in the
 * tokenizer thread, whatever its size: the first count on the event loop builds the tables there
 * (~0.2–0.3 s during which no request moves), and in a gateway of plain chats whose vendors
 * report usage, a client leaving mid-request is the first count there is.
 */
export function countAway(measure: (count: TextCounter) => number): number | Promise<number> {
  if (o200kBuilt()) return measure(countTextTokens);
  const { unique, chars } = textsOf(measure);
  if (chars > BYTE_BOUND_CHARS) return measure(boundCounter);
  // nothing to tokenise: the count is the walker's own framing
  if (chars === 0) return measure(countTextTokens);
  return countedInThread(unique, chars).then(measure);
}

/** The distinct non-empty texts `measure` would count, and their length together (measure sees a count of 1 apiece). */
function textsOf(measure: (count: TextCounter) => unknown): { unique: string[]; chars: number } {
  const texts = new Set<string>();
  let chars = 0;
  measure((text) => {
    if (text.length === 0) return 0;
    if (!texts.has(text)) chars += text.length;
    texts.add(text);
    return 1;
  });
  return { unique: [...texts], chars };
}

/** A counter that knows the tokenizer thread's counts of these texts. */
function countedInThread(unique: string[], chars: number): Promise<TextCounter> {
  tokenizerUse.chars += chars;
  return tokenThread.count(unique).then((counts) => {
    const known = new Map<string, number>();
    unique.forEach((text, i) => known.set(text, counts[i]!));
    return (text: string) => known.get(text) ?? countTextTokens(text);
  });
}

/** The whole prompt through `counterFor`: a number when it was counted inline, else a promise of it. */
export function countPrompt<Body>(body: Body, measure: (body: Body, count: TextCounter) => number, bodyBytes: number): number | Promise<number> {
  const counter = counterFor((count) => measure(body, count), bodyBytes);
  return typeof counter === 'function' ? measure(body, counter) : counter.then((count) => measure(body, count));
}

const tokenThread = new TokenThread();

/** This module as the core contract: what the pipeline hands the prompt estimate and the routes hand the decoders. */
export const offLoopCounter: OffLoopCounter = { offLoopBytes: OFF_LOOP_BYTES, boundCounter, counterFor, countPrompt, countAway };

/** For tests: the counts the tokenizer thread gives for these texts. */
export const countInThread = (texts: string[]): Promise<number[]> => tokenThread.count(texts);
