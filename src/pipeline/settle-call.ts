import type { Hold } from '../billing/ledger.ts';
import type { SharedHold } from '../billing/shared-holds.ts';
import { priceOf, type Pricing } from '../core/pricing.ts';
import type { Gateway } from '../gateway.ts';
import { usageRowOf, type RequestOutcome } from './request-record.ts';
import type { OperationRequest, RequestContext } from './run-operation.ts';

/** What one call holds until it is settled. */
export interface CallHolds {
  hold: Hold | undefined;
  /** a job took the reservation over and settles or releases it itself (shared hold included) */
  holdTaken: boolean;
  /** the call's hold across instances (REDIS_URL) */
  shared: SharedHold | undefined;
  pricing: Pricing;
}

/**
 * Charges `outcome.usage` and closes the holds, exactly once (a closed hold is left alone). Called
 * before the answer's last byte is written: the charge is then in the settlement log, and across
 * instances a pending charge in Redis, by the time the client has the whole answer — a process
 * killed right after cannot have delivered it free. runOperation's `finally` calls it again for
 * the paths that end otherwise (a client that left); nothing happens twice.
 */
export function settleCall<Call, Result>(gateway: Gateway, ctx: RequestContext, op: OperationRequest<Call, Result>, outcome: RequestOutcome, holds: CallHolds): void {
  const hold = holds.hold;
  if (!hold || holds.holdTaken || !hold.open) return;
  if (!outcome.usage) {
    gateway.ledger.release(hold);
    gateway.sharedHolds?.release(holds.shared);
    return;
  }
  outcome.costNano = priceOf(holds.pricing, outcome.usage, op.meter);
  const entryKey = `charge:${ctx.requestId}`;
  // the usage row goes into the settlement log with the charge (replayed with it); recordRequest queues the final one
  const usage = gateway.sync.settlementLog && outcome.costNano > 0 ? usageRowOf(ctx, op.endpoint, op.model, outcome, Date.now()) : undefined;
  gateway.ledger.settle(hold, outcome.costNano, { entryKey, requestId: ctx.requestId, ...(usage && { usage }) });
  gateway.sharedHolds?.settle(holds.shared, ctx.principal.accountId, entryKey, outcome.costNano);
}
