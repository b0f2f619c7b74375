import { releaseHeld, settleHeld, type HeldMoney } from '../billing/settle-held.ts';
import { priceOf } from '../core/pricing.ts';
import { usageRowOf } from './request-record.ts';
import type { CallHolds, OperationRequest, PipelineDeps, RequestContext, RequestOutcome } from './types.ts';

/**
 * Charges `outcome.usage` and closes the holds, exactly once (a closed hold is left alone). Called
 * before the answer's last byte is written: the charge is then in the settlement log, and across
 * instances a pending charge in Redis, by the time the client has the whole answer — a process
 * killed right after cannot have delivered it free. runOperation's `finally` calls it again for
 * the paths that end otherwise (a client that left); nothing happens twice.
 */
export function settleCall<Call, Result>(deps: PipelineDeps, ctx: RequestContext, op: OperationRequest<Call, Result>, outcome: RequestOutcome, holds: CallHolds): void {
  const hold = holds.hold;
  if (!hold || holds.holdTaken || !hold.open) return;
  holds.trace.settling();
  if (!outcome.usage) {
    releaseHeld(deps, heldOf(hold, holds));
    holds.trace.settled(outcome);
    return;
  }
  outcome.costNano = priceOf(holds.pricing, outcome.usage, op.meter);
  // the usage row goes into the settlement log with the charge (replayed with it); recordRequest queues the same row
  const usage = () => (outcome.chargedRow = usageRowOf(ctx, op.endpoint, op.model, outcome, Date.now()));
  settleHeld(deps, heldOf(hold, holds), { entryKey: `charge:${ctx.requestId}`, requestId: ctx.requestId, costNano: outcome.costNano, usage });
  holds.trace.settled(outcome);
}

/**
 * settleCall right before an answer's last bytes: the charge's settlement-log line is written with
 * the other answers' of this event-loop turn (SettlementLog.grouped); the caller writes those bytes
 * once the returned promise settles (undefined: nothing to wait for).
 */
export function settleBeforeAnswer<Call, Result>(deps: PipelineDeps, ctx: RequestContext, op: OperationRequest<Call, Result>, outcome: RequestOutcome, holds: CallHolds): Promise<void> | undefined {
  const log = deps.sync.settlementLog;
  if (!log?.grouped) {
    settleCall(deps, ctx, op, outcome, holds);
    return undefined;
  }
  return log.grouped(() => settleCall(deps, ctx, op, outcome, holds));
}

const heldOf = (hold: NonNullable<CallHolds['hold']>, holds: CallHolds): HeldMoney => ({ holds: [hold], shared: holds.shared ? [holds.shared] : [] });
