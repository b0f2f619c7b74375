import type { MoneyFormat } from '../core/money.ts';
import { balancesAfter, chargeDetails } from '../store/repositories/ledger-page.ts';
import type { LedgerRow } from '../store/schema.ts';
import type { AdminDeps } from './deps.ts';

export function ledgerRowView<T>(row: LedgerRow, balanceAfterNano: number, money: MoneyFormat<T>) {
  return {
    id: row.id,
    kind: row.kind,
    amount_usd: money(row.amount_nano),
    balance_usd: money(balanceAfterNano),
    note: row.note,
    request_id: row.request_id,
    key_id: row.key_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/**
 * A page of the journal, newest first, each entry with the balance right after it and what
 * the charge was for. The balance after the page's newest entry is the stored balance minus
 * every newer entry, read in one statement (one snapshot), so the column always adds up to the
 * balance at the top.
 */
export async function ledgerPage<T>(deps: AdminDeps, accountId: string, limit: number, before: number | undefined, money: MoneyFormat<T>) {
  await deps.sync.refresh();
  const rows = await deps.repos.ledger.listByAccount(accountId, limit + 1, before);
  const page = rows.slice(0, limit);
  const snapshot = await balancesAfter(deps.store.db, accountId, page[0]?.id ?? 0);
  let running = snapshot.afterTop;
  const about = await chargeDetails(deps.store.db, page.map((r) => r.request_id).filter((id): id is string => id !== null));
  const data = page.map((row) => {
    const view = { ...ledgerRowView(row, running, money), ...(row.request_id ? about.get(row.request_id) : undefined) };
    running -= row.amount_nano;
    return view;
  });
  return {
    balance_usd: money(snapshot.balance),
    data,
    next_before: rows.length > limit ? page[page.length - 1]!.id : null,
  };
}
