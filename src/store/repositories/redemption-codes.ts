import type { Kysely, Selectable } from 'kysely';
import type { RedemptionCodesTable } from '../console-schema.ts';
import type { Database } from '../schema.ts';

export type CodeStatus = 'unused' | 'redeemed' | 'revoked' | 'expired';

export interface RedemptionCode {
  id: string;
  code: string;
  batch: string;
  amountNano: number;
  note: string | null;
  expiresAt: number | null;
  revoked: boolean;
  redeemedBy: string | null;
  redeemedAt: number | null;
  createdAt: number;
}

function toCode(row: Selectable<RedemptionCodesTable>): RedemptionCode {
  return {
    id: row.id,
    code: row.code,
    batch: row.batch,
    amountNano: row.amount_nano,
    note: row.note,
    expiresAt: row.expires_at,
    revoked: row.revoked === 1,
    redeemedBy: row.redeemed_by,
    redeemedAt: row.redeemed_at,
    createdAt: row.created_at,
  };
}

export function statusOf(code: RedemptionCode, now = Date.now()): CodeStatus {
  if (code.redeemedBy) return 'redeemed';
  if (code.revoked) return 'revoked';
  if (code.expiresAt !== null && code.expiresAt <= now) return 'expired';
  return 'unused';
}

export interface CodeListQuery {
  limit: number;
  /** id cursor */
  before?: string;
  batch?: string;
  status?: CodeStatus;
}

export function redemptionCodesRepository(db: Kysely<Database>) {
  return {
    async insertMany(codes: Array<Omit<RedemptionCode, 'revoked' | 'redeemedBy' | 'redeemedAt'>>): Promise<void> {
      for (let i = 0; i < codes.length; i += 200) {
        await db
          .insertInto('redemption_codes')
          .values(
            codes.slice(i, i + 200).map((c) => ({
              id: c.id,
              code: c.code,
              batch: c.batch,
              amount_nano: c.amountNano,
              note: c.note,
              expires_at: c.expiresAt,
              revoked: 0,
              redeemed_by: null,
              redeemed_at: null,
              created_at: c.createdAt,
            })),
          )
          .execute();
      }
    },

    async list(query: CodeListQuery, now = Date.now()): Promise<RedemptionCode[]> {
      let q = db.selectFrom('redemption_codes').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit);
      if (query.batch) q = q.where('batch', '=', query.batch);
      switch (query.status) {
        case 'redeemed':
          q = q.where('redeemed_by', 'is not', null);
          break;
        case 'revoked':
          q = q.where('redeemed_by', 'is', null).where('revoked', '=', 1);
          break;
        case 'expired':
          q = q.where('redeemed_by', 'is', null).where('revoked', '=', 0).where('expires_at', '<=', now);
          break;
        case 'unused':
          q = q.where('redeemed_by', 'is', null).where('revoked', '=', 0).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
          break;
        case undefined:
          break;
      }
      if (query.before) {
        const cursor = await db.selectFrom('redemption_codes').select(['created_at', 'id']).where('id', '=', query.before).executeTakeFirst();
        if (cursor) {
          q = q.where((eb) => eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]));
        }
      }
      return (await q.execute()).map(toCode);
    },

    async byBatch(batch: string): Promise<RedemptionCode[]> {
      const rows = await db.selectFrom('redemption_codes').selectAll().where('batch', '=', batch).orderBy('id').execute();
      return rows.map(toCode);
    },

    /** Claims the code for the account in one UPDATE: of two racing redemptions exactly one wins. */
    async claim(code: string, accountId: string, now: number): Promise<RedemptionCode | undefined> {
      const row = await db
        .updateTable('redemption_codes')
        .set({ redeemed_by: accountId, redeemed_at: now })
        .where('code', '=', code)
        .where('redeemed_by', 'is', null)
        .where('revoked', '=', 0)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .returningAll()
        .executeTakeFirst();
      return row && toCode(row);
    },

    async revoke(id: string): Promise<boolean> {
      const result = await db.updateTable('redemption_codes').set({ revoked: 1 }).where('id', '=', id).where('redeemed_by', 'is', null).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type RedemptionCodesRepository = ReturnType<typeof redemptionCodesRepository>;
