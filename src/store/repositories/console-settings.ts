import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export type RegistrationMode = 'open' | 'invite' | 'closed';

/** Operator settings of the console. Money in nano-dollars, like the ledger. */
export interface ConsoleSettings {
  registration_mode: RegistrationMode;
  /** credited to each new account at sign-up */
  signup_credit_nano: number;
  /** applied to keys created in the console when the customer leaves the field empty */
  default_key_rpm: number | null;
  default_key_tpm: number | null;
  default_key_max_spend_nano: number | null;
  /** usage rows older than this are deleted (rollups and the ledger are kept); null = forever */
  usage_retention_days: number | null;
  /** the customer's overview warns below this balance */
  low_balance_nano: number;
}

export const DEFAULT_SETTINGS: ConsoleSettings = {
  registration_mode: 'open',
  signup_credit_nano: 0,
  default_key_rpm: null,
  default_key_tpm: null,
  default_key_max_spend_nano: null,
  usage_retention_days: null,
  low_balance_nano: 1_000_000_000,
};

/** One row per setting, so that two operators changing different settings never overwrite each other. */
export function settingsRepository(db: Kysely<Database>) {
  return {
    async read(): Promise<ConsoleSettings> {
      const rows = await db.selectFrom('console_settings').selectAll().execute();
      const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
      for (const row of rows) if (row.name in DEFAULT_SETTINGS) out[row.name] = JSON.parse(row.value);
      return out as unknown as ConsoleSettings;
    },

    async write(patch: Partial<ConsoleSettings>): Promise<void> {
      const now = Date.now();
      await db.transaction().execute(async (trx) => {
        for (const [name, value] of Object.entries(patch)) {
          if (value === undefined) continue;
          const json = JSON.stringify(value);
          await trx
            .insertInto('console_settings')
            .values({ name, value: json, updated_at: now })
            .onConflict((oc) => oc.column('name').doUpdateSet({ value: json, updated_at: now }))
            .execute();
        }
      });
    },
  };
}

export type SettingsRepository = ReturnType<typeof settingsRepository>;
