import type { Kysely } from 'kysely';
import { toApiKeyRecord, type ApiKeyRecord } from './api-keys.ts';
import type { Database } from '../schema.ts';

/** One page of an account's live keys, newest first, by id cursor. */
export async function keysPage(db: Kysely<Database>, accountId: string, limit: number, before?: string): Promise<ApiKeyRecord[]> {
  let q = db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('revoked', '=', 0)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (before) {
    const cursor = await db.selectFrom('api_keys').select(['created_at', 'id']).where('id', '=', before).executeTakeFirst();
    if (cursor) {
      q = q.where((eb) => eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]));
    }
  }
  return (await q.execute()).map(toApiKeyRecord);
}
