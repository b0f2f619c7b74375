import { sql } from 'kysely';
import type { Gateway } from '../../gateway.ts';
import { ledgerRowView } from '../views.ts';
import { usdString } from '../../core/money.ts';

/**
 * A page of the journal, newest first, each entry with the balance right after it. The balance
 * after the page's newest entry is the stored balance minus every newer entry, read in one
 * statement (one snapshot), so the column always adds up to the balance at the top.
 */
export async function readLedgerPage(gateway: Gateway, accountId: string, limit: number, before?: number) {
  await gateway.sync.refresh();
  const db = gateway.store.db;
  const rows = await gateway.repos.ledger.listByAccount(accountId, limit + 1, before);
  const page = rows.slice(0, limit);
  const top = page[0]?.id ?? 0;
  const result = await sql<{ balance: number | string; after_top: number | string }>`
    select a.balance_nano as balance,
      a.balance_nano - coalesce((select sum(l.amount_nano) from ledger l where l.account_id = ${accountId} and l.id > ${top}), 0) as after_top
    from accounts a where a.id = ${accountId}`.execute(db);
  const snapshot = result.rows[0];
  let running = Number(snapshot?.after_top ?? 0);
  const about = await chargeDetails(gateway, page.map((r) => r.request_id).filter((id): id is string => id !== null));
  const data = page.map((row) => {
    const view = { ...ledgerRowView(row, running), ...(row.request_id ? about.get(row.request_id) : undefined) };
    running -= row.amount_nano;
    return view;
  });
  return {
    balance_usd: usdString(Number(snapshot?.balance ?? 0)),
    data,
    next_before: rows.length > limit ? page[page.length - 1]!.id : null,
  };
}

/** Model, endpoint and key name of the requests behind a page of charges (one indexed query each). */
async function chargeDetails(gateway: Gateway, requestIds: string[]) {
  const out = new Map<string, { model: string; endpoint: string; key_name: string | null }>();
  if (requestIds.length === 0) return out;
  const db = gateway.store.db;
  const rows = await db.selectFrom('usage_log').select(['request_id', 'model', 'endpoint', 'key_id']).where('request_id', 'in', requestIds).execute();
  const keyIds = [...new Set(rows.map((r) => r.key_id))];
  const keys = keyIds.length ? await db.selectFrom('api_keys').select(['id', 'name', 'key_hint']).where('id', 'in', keyIds).execute() : [];
  const names = new Map(keys.map((k) => [k.id, k.name ?? k.key_hint]));
  for (const r of rows) out.set(r.request_id, { model: r.model, endpoint: r.endpoint, key_name: names.get(r.key_id) ?? null });
  return out;
}
