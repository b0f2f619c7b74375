import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** Secrets every instance must share (e.g. the link-signing key), created once by whoever comes first. */
export function secretsRepository(db: Kysely<Database>) {
  return {
    async getOrCreate(name: string, generate: () => string): Promise<string> {
      await db
        .insertInto('gateway_secrets')
        .values({ name, value: generate(), created_at: Date.now() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('gateway_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return row.value;
    },
  };
}
