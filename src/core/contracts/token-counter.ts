import type { TextCounter } from '../tokens/token-counter.ts';

/**
 * Counts one request's texts, a large request's off the event loop. The pipeline implements it
 * (a tokenizer thread); the prompt estimate and the dialects that count take it as an argument.
 */
export interface OffLoopCounter {
  /** a body smaller than this is counted on the event loop */
  readonly offLoopBytes: number;
  /** the counter of a request whose texts were too long to tokenise: it only bounds them */
  readonly boundCounter: TextCounter;
  /**
   * A counter for one request's texts: `measure` walks the request calling `count` once per
   * text; the result is the inline counter, the bound, or a promise of counts made elsewhere.
   */
  counterFor(measure: (count: TextCounter) => unknown, bodyBytes: number): TextCounter | Promise<TextCounter>;
  /** The whole prompt through `counterFor`: a number when it was counted inline, else a promise of it. */
  countPrompt<Body>(body: Body, measure: (body: Body, count: TextCounter) => number, bodyBytes: number): number | Promise<number>;
  /**
   * A count nobody waits for (what a client that left is charged), whatever its size: inline
   * once this thread's tables exist, else made elsewhere, so that it never builds them here.
   */
  countAway(measure: (count: TextCounter) => number): number | Promise<number>;
}
