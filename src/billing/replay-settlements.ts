import type { Gateway } from '../gateway.ts';
import type { SettlementLog } from './settlement-log.ts';

/**
 * At start: the settlements that processes killed before their flush had logged (SettlementLog)
 * are applied and committed again, with their usage rows; what those processes had committed
 * already is skipped by the database (unique entry keys and request ids). Their files go once
 * the batch is in; what they had pending in Redis on those accounts is marked visible.
 */
export async function replaySettlements(gateway: Gateway, log: SettlementLog): Promise<void> {
  const orphans = log.orphans(gateway.log);
  if (orphans.length === 0) return;
  for (const orphan of orphans) {
    for (const { entry, usage } of orphan.settlements) {
      gateway.ledger.replay(entry, usage);
      if (usage) gateway.sync.recordUsage(usage);
    }
  }
  await gateway.sync.now();
  for (const orphan of orphans) {
    gateway.sharedHolds?.visibleAll(orphan.owner, new Set(orphan.settlements.map((s) => s.entry.accountId)), gateway.sync.seenSeq);
    orphan.discard();
    gateway.log.info({ owner: orphan.owner, entries: orphan.settlements.length }, 'settlement log of a stopped process replayed');
  }
}
