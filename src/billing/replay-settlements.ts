import type { Logger } from 'pino';
import type { StateSync } from '../store/state-sync.ts';
import { budgetSubjectsOf } from './budgets.ts';
import type { Ledger } from './ledger.ts';
import type { SettlementLog } from './settlement-log.ts';
import type { SharedHolds } from './shared-holds.ts';

/** What a replay touches: the ledger, the write-behind queue, the cross-instance holds (REDIS_URL) and the log. */
export interface ReplayDeps {
  ledger: Pick<Ledger, 'replay'>;
  sync: Pick<StateSync, 'recordUsage' | 'now' | 'seenSeq'>;
  sharedHolds: Pick<SharedHolds, 'visibleAll'> | undefined;
  log: Logger;
}

/**
 * At start: the settlements that processes killed before their flush had logged (SettlementLog)
 * are applied and committed again, with their usage rows; what those processes had committed
 * already is skipped by the database (unique entry keys and request ids). Their files go once
 * the batch is in; what they had pending in Redis on those accounts is marked visible.
 */
export async function replaySettlements(deps: ReplayDeps, log: SettlementLog): Promise<void> {
  const orphans = log.orphans(deps.log);
  if (orphans.length === 0) return;
  for (const orphan of orphans) {
    for (const { entry, usage } of orphan.settlements) {
      deps.ledger.replay(entry, usage);
      if (usage) deps.sync.recordUsage(usage);
    }
  }
  await deps.sync.now();
  for (const orphan of orphans) {
    // its accounts, and the budgets its charges were counted under
    const names = new Set(orphan.settlements.flatMap((s) => [s.entry.accountId, ...(s.entry.kind === 'charge' ? budgetSubjectsOf(s.entry) : [])]));
    deps.sharedHolds?.visibleAll(orphan.owner, names, deps.sync.seenSeq);
    orphan.discard();
    deps.log.info({ owner: orphan.owner, entries: orphan.settlements.length }, 'settlement log of a stopped process replayed');
  }
}
