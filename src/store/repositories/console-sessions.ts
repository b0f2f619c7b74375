import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface SessionRecord {
  id: string;
  userId: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** The table keeps SHA-256 digests of cookie values, never the values. */
export const sessionDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

export function sessionsRepository(db: Kysely<Database>) {
  return {
    async insert(input: { token: string; userId: string; csrfToken: string; expiresAt: number; ip: string | null; userAgent: string | null }): Promise<void> {
      const now = Date.now();
      await db
        .insertInto('console_sessions')
        .values({
          id: sessionDigest(input.token),
          user_id: input.userId,
          csrf_token: input.csrfToken,
          created_at: now,
          last_seen_at: now,
          expires_at: input.expiresAt,
          ip: input.ip,
          user_agent: input.userAgent?.slice(0, 300) ?? null,
        })
        .execute();
    },

    async find(token: string): Promise<SessionRecord | undefined> {
      const row = await db.selectFrom('console_sessions').selectAll().where('id', '=', sessionDigest(token)).executeTakeFirst();
      return (
        row && { id: row.id, userId: row.user_id, csrfToken: row.csrf_token, createdAt: row.created_at, lastSeenAt: row.last_seen_at, expiresAt: row.expires_at }
      );
    },

    async touch(id: string, at: number, expiresAt: number): Promise<void> {
      await db.updateTable('console_sessions').set({ last_seen_at: at, expires_at: expiresAt }).where('id', '=', id).execute();
    },

    async remove(id: string): Promise<void> {
      await db.deleteFrom('console_sessions').where('id', '=', id).execute();
    },

    /** Every session of the user except, optionally, one. */
    async removeForUser(userId: string, except?: string): Promise<void> {
      let q = db.deleteFrom('console_sessions').where('user_id', '=', userId);
      if (except) q = q.where('id', '!=', except);
      await q.execute();
    },

    async removeExpired(now: number): Promise<void> {
      await db.deleteFrom('console_sessions').where('expires_at', '<=', now).execute();
    },
  };
}

export type SessionsRepository = ReturnType<typeof sessionsRepository>;
