import type { Kysely } from 'kysely';
import type { Database, ProviderRow } from '../schema.ts';
import { nextSeq } from '../seq.ts';
import type { ProviderSettings } from '../../core/contracts/provider-settings.ts';


export interface ProviderRecord {
  id: string;
  name: string;
  type: string;
  baseUrl: string;
  apiKey: string;
  models: string[];
  modelMap: Record<string, string>;
  priority: number;
  weight: number;
  enabled: boolean;
  settings: ProviderSettings;
  deleted: boolean;
  seq: number;
  createdAt: number;
  updatedAt: number;
}

export type ProviderInput = Omit<ProviderRecord, 'seq' | 'createdAt' | 'updatedAt' | 'deleted'>;
export type ProviderPatch = Partial<Omit<ProviderInput, 'id'>>;

export function toProviderRecord(row: ProviderRow): ProviderRecord {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    baseUrl: row.base_url,
    apiKey: row.api_key,
    models: JSON.parse(row.models) as string[],
    modelMap: JSON.parse(row.model_map) as Record<string, string>,
    priority: row.priority,
    weight: row.weight,
    enabled: row.enabled === 1,
    settings: JSON.parse(row.settings) as ProviderSettings,
    deleted: row.deleted === 1,
    seq: row.seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function providersRepository(db: Kysely<Database>) {
  return {
    async insert(input: ProviderInput): Promise<ProviderRecord> {
      const now = Date.now();
      const row = await db.transaction().execute(async (trx) =>
        trx
          .insertInto('providers')
          .values({
            id: input.id,
            name: input.name,
            type: input.type,
            base_url: input.baseUrl,
            api_key: input.apiKey,
            models: JSON.stringify(input.models),
            model_map: JSON.stringify(input.modelMap),
            priority: input.priority,
            weight: input.weight,
            enabled: input.enabled ? 1 : 0,
            settings: JSON.stringify(input.settings),
            seq: await nextSeq(trx),
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow(),
      );
      return toProviderRecord(row);
    },

    async update(id: string, patch: ProviderPatch): Promise<ProviderRecord | undefined> {
      const row = await db.transaction().execute(async (trx) =>
        trx
          .updateTable('providers')
          .set({
            ...(patch.name !== undefined && { name: patch.name }),
            ...(patch.type !== undefined && { type: patch.type }),
            ...(patch.baseUrl !== undefined && { base_url: patch.baseUrl }),
            ...(patch.apiKey !== undefined && { api_key: patch.apiKey }),
            ...(patch.models !== undefined && { models: JSON.stringify(patch.models) }),
            ...(patch.modelMap !== undefined && { model_map: JSON.stringify(patch.modelMap) }),
            ...(patch.priority !== undefined && { priority: patch.priority }),
            ...(patch.weight !== undefined && { weight: patch.weight }),
            ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
            ...(patch.settings !== undefined && { settings: JSON.stringify(patch.settings) }),
            seq: await nextSeq(trx),
            updated_at: Date.now(),
          })
          .where('id', '=', id)
          .where('deleted', '=', 0)
          .returningAll()
          .executeTakeFirst(),
      );
      return row && toProviderRecord(row);
    },

    /** Soft delete, so that other instances polling for changes see the removal. */
    async remove(id: string): Promise<boolean> {
      const result = await db.transaction().execute(async (trx) =>
        trx
          .updateTable('providers')
          .set({ deleted: 1, enabled: 0, name: `${id}:deleted`, seq: await nextSeq(trx), updated_at: Date.now() })
          .where('id', '=', id)
          .where('deleted', '=', 0)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },

    async get(id: string): Promise<ProviderRecord | undefined> {
      const row = await db.selectFrom('providers').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
      return row && toProviderRecord(row);
    },

    async list(): Promise<ProviderRecord[]> {
      const rows = await db.selectFrom('providers').selectAll().where('deleted', '=', 0).orderBy('created_at').orderBy('id').execute();
      return rows.map(toProviderRecord);
    },

    async findByName(name: string): Promise<ProviderRecord | undefined> {
      const row = await db.selectFrom('providers').selectAll().where('name', '=', name).where('deleted', '=', 0).executeTakeFirst();
      return row && toProviderRecord(row);
    },

    async changedSince(seq: number): Promise<ProviderRecord[]> {
      const rows = await db.selectFrom('providers').selectAll().where('seq', '>', seq).execute();
      return rows.map(toProviderRecord);
    },
  };
}

export type ProvidersRepository = ReturnType<typeof providersRepository>;
