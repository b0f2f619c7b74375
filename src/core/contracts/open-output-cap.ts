/**
 * The output cap of a request that set none: the model's whole output when the balance covers
 * it, else the configured allowance already in `estimate.outputTokens`. Either way the call sends
 * upstream exactly the cap that was reserved for, so the vendor cannot bill more than was held.
 * The dialect that decoded the request offers it; the pipeline's reservation decides.
 */
export interface OpenOutputCap {
  modelMaxTokens: number;
  /** answers generated per request (`n`): the cap holds for each */
  choices: number;
  /** the call now sends `tokens` upstream as its output cap */
  grant(tokens: number): void;
}
