import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * The account's stored balance and its balance right after journal entry `topId` (the stored
 * balance minus every newer entry), read in one statement so both come from one snapshot.
 */
export async function balancesAfter(db: Kysely<Database>, accountId: string, topId: number): Promise<{ balance: number; afterTop: number }> {
  const result = await sql<{ balance: number | string; after_top: number | string }>`
    select a.balance_nano as balance,
      a.balance_nano - coalesce((select sum(l.amount_nano) from ledger l where l.account_id = ${accountId} and l.id > ${topId}), 0) as after_top
    from accounts a where a.id = ${accountId}`.execute(db);
  const snapshot = result.rows[0];
  return { balance: Number(snapshot?.balance ?? 0), afterTop: Number(snapshot?.after_top ?? 0) };
}

export interface ChargeDetails {
  model: string;
  endpoint: string;
  key_name: string | null;
}

/** Model, endpoint and key name of the requests behind a page of charges (one indexed query each). */
export async function chargeDetails(db: Kysely<Database>, requestIds: string[]): Promise<Map<string, ChargeDetails>> {
  const out = new Map<string, ChargeDetails>();
  if (requestIds.length === 0) return out;
  const rows = await db.selectFrom('usage_log').select(['request_id', 'model', 'endpoint', 'key_id']).where('request_id', 'in', requestIds).execute();
  const keyIds = [...new Set(rows.map((r) => r.key_id))];
  const keys = keyIds.length ? await db.selectFrom('api_keys').select(['id', 'name', 'key_hint']).where('id', 'in', keyIds).execute() : [];
  const names = new Map(keys.map((k) => [k.id, k.name ?? k.key_hint]));
  for (const r of rows) out.set(r.request_id, { model: r.model, endpoint: r.endpoint, key_name: names.get(r.key_id) ?? null });
  return out;
}
