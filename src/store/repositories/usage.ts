import type { Kysely } from 'kysely';
import type { Database, UsageRow } from '../schema.ts';

export interface UsageQuery {
  accountId?: string;
  keyId?: string;
  model?: string;
  limit: number;
  /** id cursor for paging: rows older than this one */
  beforeId?: number;
}

export function usageRepository(db: Kysely<Database>) {
  return {
    async list(query: UsageQuery): Promise<UsageRow[]> {
      let q = db.selectFrom('usage_log').selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.accountId) q = q.where('account_id', '=', query.accountId);
      if (query.keyId) q = q.where('key_id', '=', query.keyId);
      if (query.model) q = q.where('model', '=', query.model);
      if (query.beforeId !== undefined) q = q.where('id', '<', query.beforeId);
      return q.execute();
    },
  };
}

export type UsageRepository = ReturnType<typeof usageRepository>;
