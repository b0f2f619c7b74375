import type { OpenOutputCap } from '../../core/contracts/open-output-cap.ts';
import type { PaidEstimate } from '../../core/paid-features.ts';

/** A request decoded by a dialect: what the route hands the pipeline beside the operation's name. */
export interface Decoded<Call> {
  model: string;
  call: Call;
  stream: boolean;
  /** see OperationRequest.estimate: `inputTokens` may be a lazy getter beside a cheap bound */
  estimate: { inputTokens: number; outputTokens: number; inputTokensUpperBound?: number; settle?: () => Promise<void> | undefined; paid?: PaidEstimate };
  openOutputCap?: OpenOutputCap;
}
