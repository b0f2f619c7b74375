import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { nextSeq } from '../seq.ts';

export interface ModelOverrideRecord {
  model: string;
  /** pricing in USD as the admin API takes it (see catalogue/pricing.ts) */
  pricing: Record<string, unknown> | null;
  capabilities: Record<string, unknown> | null;
  seq: number;
}

export function modelOverridesRepository(db: Kysely<Database>) {
  return {
    async upsert(model: string, pricing: Record<string, unknown> | null, capabilities: Record<string, unknown> | null): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const seq = await nextSeq(trx);
        const values = {
          pricing: pricing === null ? null : JSON.stringify(pricing),
          capabilities: capabilities === null ? null : JSON.stringify(capabilities),
          seq,
          updated_at: Date.now(),
        };
        await trx
          .insertInto('model_overrides')
          .values({ model, ...values })
          .onConflict((oc) => oc.column('model').doUpdateSet(values))
          .execute();
      });
    },

    async changedSince(seq: number): Promise<ModelOverrideRecord[]> {
      const rows = await db.selectFrom('model_overrides').selectAll().where('seq', '>', seq).execute();
      return rows.map((row) => ({
        model: row.model,
        pricing: row.pricing === null ? null : (JSON.parse(row.pricing) as Record<string, unknown>),
        capabilities: row.capabilities === null ? null : (JSON.parse(row.capabilities) as Record<string, unknown>),
        seq: row.seq,
      }));
    },
  };
}

export type ModelOverridesRepository = ReturnType<typeof modelOverridesRepository>;
