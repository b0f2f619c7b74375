import type { Nano } from '../core/money.ts';
import type { NewUsageRow } from '../store/schema.ts';
import type { StateSync } from '../store/state-sync.ts';
import type { Hold, Ledger } from './ledger.ts';
import type { SharedHold, SharedHolds } from './shared-holds.ts';

/** The money set aside for one piece of work: ledger holds and their cross-instance counterparts. */
export interface HeldMoney {
  /** the first takes the charge; the others (top-ups) are released beside it */
  readonly holds: readonly Hold[];
  /** the first becomes the pending charge, the others are released; emptied once settled or released */
  readonly shared: SharedHold[];
}

/** What settling touches; the write-behind only to know whether a settlement log keeps usage rows. */
export interface SettleDeps {
  ledger: Pick<Ledger, 'settle' | 'release'>;
  sharedHolds: Pick<SharedHolds, 'settle' | 'release'> | undefined;
  sync: Pick<StateSync, 'settlementLog'>;
}

export interface Charge {
  /** the journal entry's key: settling the same work again under it is a no-op in the database */
  entryKey: string;
  requestId: string;
  note?: string;
  costNano: Nano;
  /** the work's usage row, logged with the charge so that a replay after a crash restores both; built only when it is logged */
  usage: () => NewUsageRow;
}

/**
 * Charges `costNano` (0: nothing) on the first hold and closes them all, on this instance and
 * across instances — the same steps for an HTTP call, a realtime response and a video job.
 * Exactly once: returns false, doing nothing, when the first hold is closed already.
 */
export function settleHeld(deps: SettleDeps, held: HeldMoney, charge: Charge): boolean {
  const holds = held.holds;
  const first = holds[0];
  if (!first?.open) return false;
  const usage = deps.sync.settlementLog && charge.costNano > 0 ? charge.usage() : undefined;
  deps.ledger.settle(first, charge.costNano, { entryKey: charge.entryKey, requestId: charge.requestId, note: charge.note, usage });
  for (let i = 1; i < holds.length; i++) deps.ledger.release(holds[i]!);
  // emptied first: a second settlement finds nothing to close
  const shared = held.shared.splice(0);
  deps.sharedHolds?.settle(shared[0], first.accountId, charge.entryKey, charge.costNano);
  for (let i = 1; i < shared.length; i++) deps.sharedHolds?.release(shared[i]);
  return true;
}

/** Nothing delivered: every hold is freed without a charge. */
export function releaseHeld(deps: Pick<SettleDeps, 'ledger' | 'sharedHolds'>, held: HeldMoney): void {
  for (const hold of held.holds) deps.ledger.release(hold);
  for (const shared of held.shared.splice(0)) deps.sharedHolds?.release(shared);
}
