import type { Kysely } from 'kysely';
import type { Insertable } from 'kysely';
import type { Database, MediaObjectRow, MediaObjectsTable } from '../schema.ts';

export function mediaObjectsRepository(db: Kysely<Database>) {
  return {
    async insert(row: Insertable<MediaObjectsTable>): Promise<void> {
      await db.insertInto('media_objects').values(row).execute();
    },

    async get(id: string): Promise<MediaObjectRow | undefined> {
      return db.selectFrom('media_objects').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async expired(now: number, limit: number): Promise<MediaObjectRow[]> {
      return db.selectFrom('media_objects').selectAll().where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute();
    },

    async remove(id: string): Promise<void> {
      await db.deleteFrom('media_objects').where('id', '=', id).execute();
    },
  };
}

export type MediaObjectsRepository = ReturnType<typeof mediaObjectsRepository>;
