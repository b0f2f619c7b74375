import { sql, type Kysely } from 'kysely';
import type { AccountRow, Database } from '../schema.ts';
import { nextSeq } from '../seq.ts';
import type { BudgetPeriod, PeriodSpend } from '../../core/budget-period.ts';
import { budgetOf, periodSpendOf } from './api-keys.ts';

export interface AccountRecord {
  id: string;
  name: string;
  email: string | null;
  /** the journal's sum as last committed to the database */
  balanceNano: number;
  disabled: boolean;
  /** a periodic budget: at most `budgetNano` charged per `budgetPeriod` (both set, or both null) */
  budgetNano: number | null;
  budgetPeriod: BudgetPeriod | null;
  /** the account's charges per period kind, as committed */
  periodSpend: PeriodSpend;
  seq: number;
  createdAt: number;
}

export interface AccountPatch {
  name?: string;
  email?: string | null;
  disabled?: boolean;
  budgetNano?: number | null;
  budgetPeriod?: BudgetPeriod | null;
}

export function toAccountRecord(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    balanceNano: row.balance_nano,
    disabled: row.disabled === 1,
    ...budgetOf(row.budget_nano, row.budget_period),
    periodSpend: periodSpendOf(row),
    seq: row.seq,
    createdAt: row.created_at,
  };
}

export interface AccountListQuery {
  limit: number;
  /** id cursor: accounts created before this one */
  before?: string;
  search?: string;
}

export function accountsRepository(db: Kysely<Database>) {
  return {
    async insert(input: { id: string; name: string; email: string | null }): Promise<AccountRecord> {
      const now = Date.now();
      const row = await db.transaction().execute(async (trx) =>
        trx
          .insertInto('accounts')
          .values({ ...input, balance_nano: 0, seq: await nextSeq(trx), created_at: now, updated_at: now })
          .returningAll()
          .executeTakeFirstOrThrow(),
      );
      return toAccountRecord(row);
    },

    async update(id: string, patch: AccountPatch): Promise<AccountRecord | undefined> {
      const row = await db.transaction().execute(async (trx) =>
        trx
          .updateTable('accounts')
          .set({
            ...(patch.name !== undefined && { name: patch.name }),
            ...(patch.email !== undefined && { email: patch.email }),
            ...(patch.disabled !== undefined && { disabled: patch.disabled ? 1 : 0 }),
            ...(patch.budgetNano !== undefined && { budget_nano: patch.budgetNano }),
            ...(patch.budgetPeriod !== undefined && { budget_period: patch.budgetPeriod }),
            seq: await nextSeq(trx),
            updated_at: Date.now(),
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst(),
      );
      return row && toAccountRecord(row);
    },

    async get(id: string): Promise<AccountRecord | undefined> {
      const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toAccountRecord(row);
    },

    async list(query: AccountListQuery): Promise<AccountRecord[]> {
      let q = db.selectFrom('accounts').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit);
      if (query.search) {
        const pattern = `%${query.search.replace(/[%_\\]/g, '\\$&')}%`;
        // an explicit ESCAPE: PostgreSQL defaults to backslash, SQLite has no escape character at all
        // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not
        const like = (column: 'name' | 'email') => sql<boolean>`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
        q = q.where((eb) => eb.or([like('name'), like('email'), eb('id', '=', query.search!)]));
      }
      if (query.before) {
        const cursor = await db.selectFrom('accounts').select(['created_at', 'id']).where('id', '=', query.before).executeTakeFirst();
        if (cursor) {
          q = q.where((eb) =>
            eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]),
          );
        }
      }
      return (await q.execute()).map(toAccountRecord);
    },

    async changedSince(seq: number): Promise<AccountRecord[]> {
      const rows = await db.selectFrom('accounts').selectAll().where('seq', '>', seq).execute();
      return rows.map(toAccountRecord);
    },
  };
}

export type AccountsRepository = ReturnType<typeof accountsRepository>;
