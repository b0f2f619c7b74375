import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** Display names of the ids a chart or a page shows (one indexed IN query; at most 500 ids). */
export async function labelsOf(db: Kysely<Database>, group: string, ids: string[]): Promise<Record<string, string>> {
  const wanted = ids.filter(Boolean).slice(0, 500);
  if (wanted.length === 0) return {};
  let rows: Array<{ id: string; label: string | null }> = [];
  if (group === 'account') rows = await db.selectFrom('accounts').select(['id', 'name as label']).where('id', 'in', wanted).execute();
  else if (group === 'key') {
    const keys = await db.selectFrom('api_keys').select(['id', 'name', 'key_hint']).where('id', 'in', wanted).execute();
    rows = keys.map((k) => ({ id: k.id, label: k.name ?? k.key_hint }));
  } else if (group === 'provider') rows = await db.selectFrom('providers').select(['id', 'name as label']).where('id', 'in', wanted).execute();
  return Object.fromEntries(rows.map((r) => [r.id, r.label ?? r.id]));
}

/** The account's keys (revoked ones too) for a usage filter, newest first, at most 500. */
export async function keyChoices(db: Kysely<Database>, accountId: string) {
  const rows = await db.selectFrom('api_keys').select(['id', 'name', 'key_hint', 'revoked']).where('account_id', '=', accountId).orderBy('created_at', 'desc').limit(500).execute();
  return rows.map((r) => ({ id: r.id, name: r.name, key_hint: r.key_hint, revoked: r.revoked === 1 }));
}

/** Names of the accounts by id (the overview's top accounts). */
export async function accountNames(db: Kysely<Database>, ids: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (ids.length === 0) return names;
  const rows = await db.selectFrom('accounts').select(['id', 'name']).where('id', 'in', ids).execute();
  for (const r of rows) names.set(r.id, r.name);
  return names;
}
