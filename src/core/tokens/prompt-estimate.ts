import type { OffLoopCounter } from '../contracts/token-counter.ts';
import { countTextTokens, type TextCounter } from './token-counter.ts';

/**
 * A request's token estimate whose prompt is counted when first needed: `settle(counter)` (called
 * by runOperation after admission with the pipeline's off-loop counter, and awaited when the count
 * decides something) counts a large prompt off the event loop; a small one — or any, when no
 * counter is given — is counted inline when `inputTokens` is read; `settleAway(counter)` counts
 * the prompt of a client that left, never building the tables on the event loop. `measure`
 * is one of the dialects' prompt walkers, `times` how many times the prompt is billed (best_of).
 */
export class PromptEstimate<Body> {
  readonly outputTokens: number;
  #exact: number | undefined;
  /** the count under way elsewhere (settle), which settleAway waits for rather than count again */
  #counting: Promise<void> | undefined;
  readonly #body: Body;
  readonly #measure: (body: Body, count: TextCounter) => number;
  readonly #bodyBytes: number;
  readonly #times: number;

  constructor(body: Body, measure: (body: Body, count: TextCounter) => number, outputTokens: number, bodyBytes: number, times = 1) {
    this.#body = body;
    this.#measure = measure;
    this.outputTokens = outputTokens;
    this.#bodyBytes = bodyBytes;
    this.#times = times;
  }

  get inputTokens(): number {
    return (this.#exact ??= this.#measure(this.#body, countTextTokens) * this.#times);
  }

  settle(counter?: OffLoopCounter): Promise<void> | undefined {
    if (counter === undefined || this.#exact !== undefined || this.#bodyBytes < counter.offLoopBytes) return undefined;
    const counted = counter.countPrompt(this.#body, this.#measure, this.#bodyBytes);
    if (typeof counted === 'number') {
      this.#exact = counted * this.#times;
      return undefined;
    }
    return (this.#counting = this.#exactFrom(counted));
  }

  /** The prompt counted for a charge nobody waits for (OffLoopCounter.countAway); `inputTokens` then reads it. */
  settleAway(counter: OffLoopCounter): Promise<void> | undefined {
    if (this.#exact !== undefined) return undefined;
    if (this.#counting) return this.#counting;
    const counted = counter.countAway((count) => this.#measure(this.#body, count));
    if (typeof counted === 'number') {
      this.#exact = counted * this.#times;
      return undefined;
    }
    return (this.#counting = this.#exactFrom(counted));
  }

  #exactFrom(counted: Promise<number>): Promise<void> {
    // never rejects: a settle nobody waited for must not become an unhandled rejection
    return counted.then(
      (tokens) => {
        this.#exact ??= tokens * this.#times;
      },
      () => undefined,
    );
  }
}

/** The body's length as sent (Content-Length), NaN when unknown: the off-loop decisions' size. */
export const bodyBytesOf = (headers: { 'content-length'?: string | undefined }): number => Number(headers['content-length'] ?? Number.NaN);
