import type { Kysely, Updateable } from 'kysely';
import type { Database, NewVideoJobRow, VideoJobRow, VideoJobsTable } from '../schema.ts';

export type VideoJobPatch = Omit<Updateable<VideoJobsTable>, 'id' | 'account_id' | 'created_at'>;

const OPEN: Array<VideoJobsTable['status']> = ['queued', 'in_progress'];

export function videoJobsRepository(db: Kysely<Database>) {
  return {
    async insert(row: NewVideoJobRow): Promise<void> {
      await db.insertInto('video_jobs').values(row).execute();
    },

    /** A job as its account sees it: another account's job does not exist. */
    async get(id: string, accountId?: string): Promise<VideoJobRow | undefined> {
      let q = db.selectFrom('video_jobs').selectAll().where('id', '=', id);
      if (accountId !== undefined) q = q.where('account_id', '=', accountId);
      return q.executeTakeFirst();
    },

    async list(accountId: string, options: { limit: number; order: 'asc' | 'desc'; after?: VideoJobRow }): Promise<VideoJobRow[]> {
      let q = db.selectFrom('video_jobs').selectAll().where('account_id', '=', accountId);
      if (options.after) {
        const { created_at: at, id } = options.after;
        q =
          options.order === 'desc'
            ? q.where((eb) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]))
            : q.where((eb) => eb.or([eb('created_at', '>', at), eb.and([eb('created_at', '=', at), eb('id', '>', id)])]));
      }
      return q.orderBy('created_at', options.order).orderBy('id', options.order).limit(options.limit).execute();
    },

    async update(id: string, patch: VideoJobPatch, owner?: string): Promise<boolean> {
      let q = db.updateTable('video_jobs').set({ ...patch, updated_at: Date.now() }).where('id', '=', id);
      if (owner !== undefined) q = q.where('lease_owner', '=', owner);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async remove(id: string, accountId: string): Promise<boolean> {
      const result = await db.deleteFrom('video_jobs').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Open jobs this instance owns or may take over (their owner's lease ran out). */
    async claimable(owner: string, now: number, limit: number): Promise<VideoJobRow[]> {
      return db
        .selectFrom('video_jobs')
        .selectAll()
        .where('status', 'in', OPEN)
        .where((eb) => eb.or([eb('lease_owner', '=', owner), eb('lease_expires_at', '<', now)]))
        .orderBy('created_at')
        .limit(limit)
        .execute();
    },

    /** Takes or renews the lease of one job; false when another live instance owns it. */
    async lease(id: string, owner: string, now: number, until: number): Promise<boolean> {
      const result = await db
        .updateTable('video_jobs')
        .set({ lease_owner: owner, lease_expires_at: until })
        .where('id', '=', id)
        .where('status', 'in', OPEN)
        .where((eb) => eb.or([eb('lease_owner', '=', owner), eb('lease_expires_at', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** On a graceful stop: another instance (or this one restarted) may take the jobs over at once. */
    async releaseLeases(owner: string): Promise<void> {
      await db.updateTable('video_jobs').set({ lease_expires_at: 0 }).where('lease_owner', '=', owner).where('status', 'in', OPEN).execute();
    },
  };
}

export type VideoJobsRepository = ReturnType<typeof videoJobsRepository>;
