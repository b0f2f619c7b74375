import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface Invite {
  code: string;
  email: string | null;
  note: string | null;
  createdAt: number;
  expiresAt: number | null;
  usedBy: string | null;
  usedAt: number | null;
}

export function invitesRepository(db: Kysely<Database>) {
  return {
    async insert(input: { code: string; email: string | null; note: string | null; expiresAt: number | null }): Promise<void> {
      await db
        .insertInto('console_invites')
        .values({ code: input.code, email: input.email, note: input.note, created_at: Date.now(), expires_at: input.expiresAt, used_by: null, used_at: null })
        .execute();
    },

    async list(limit: number): Promise<Invite[]> {
      const rows = await db.selectFrom('console_invites').selectAll().orderBy('created_at', 'desc').limit(limit).execute();
      return rows.map((r) => ({ code: r.code, email: r.email, note: r.note, createdAt: r.created_at, expiresAt: r.expires_at, usedBy: r.used_by, usedAt: r.used_at }));
    },

    /**
     * Marks the invite used by `userId`; false when it does not exist, is used, expired or is
     * meant for another email. One UPDATE, so two sign-ups cannot share an invite.
     */
    async use(code: string, email: string, userId: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('console_invites')
        .set({ used_by: userId, used_at: now })
        .where('code', '=', code)
        .where('used_by', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .where((eb) => eb.or([eb('email', 'is', null), eb('email', '=', email)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async remove(code: string): Promise<boolean> {
      const result = await db.deleteFrom('console_invites').where('code', '=', code).where('used_by', 'is', null).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}

export type InvitesRepository = ReturnType<typeof invitesRepository>;
