import type { Kysely } from 'kysely';
import { isBudgetPeriod, type BudgetPeriod, type PeriodSpend } from '../../core/budget-period.ts';
import type { ApiKeyRow, Database } from '../schema.ts';
import { nextSeq } from '../seq.ts';

/** What limits a key: the operator's (admin API) or the customer's own (console). Null: no limit. */
export interface KeyLimits {
  disabled: boolean;
  expiresAt: number | null;
  rpm: number | null;
  tpm: number | null;
  maxSpendNano: number | null;
  /** allowed model ids */
  models: string[] | null;
  /** a periodic budget: at most `budgetNano` charged per `budgetPeriod` (both set, or both null) */
  budgetNano: number | null;
  budgetPeriod: BudgetPeriod | null;
}

/**
 * A key as the request path uses it: `disabled`, `expiresAt`, `rpm`, `tpm`, `maxSpendNano` and
 * `models` are the effective limits, the tighter of the operator's and the customer's own (both
 * kept beside them; `models` the models both allow), so authentication, rate limits and the spend cap stay one lookup.
 */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string | null;
  keyHash: string;
  keyHint: string;
  expiresAt: number | null;
  disabled: boolean;
  revoked: boolean;
  models: string[] | null;
  rpm: number | null;
  tpm: number | null;
  maxSpendNano: number | null;
  /** the budget that applies (see `effectiveBudget`) */
  budgetNano: number | null;
  budgetPeriod: BudgetPeriod | null;
  spentNano: number;
  /** the key's charges per period kind, as committed */
  periodSpend: PeriodSpend;
  lastUsedAt: number | null;
  seq: number;
  createdAt: number;
  operator: KeyLimits;
  customer: KeyLimits;
}

/** `expiresAt`, `models`, `rpm`, `tpm` and `maxSpendNano` are the operator's; `customer` the customer's own. */
export type ApiKeyInput = Pick<ApiKeyRecord, 'id' | 'accountId' | 'name' | 'keyHash' | 'keyHint' | 'expiresAt' | 'models' | 'rpm' | 'tpm' | 'maxSpendNano'> &
  Partial<Pick<ApiKeyRecord, 'budgetNano' | 'budgetPeriod'>> & {
  customer?: Partial<KeyLimits>;
};
/** The limit fields change the operator's; `customer` changes the customer's own. */
export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'expiresAt' | 'disabled' | 'models' | 'rpm' | 'tpm' | 'maxSpendNano' | 'budgetNano' | 'budgetPeriod'>> & {
  customer?: Partial<KeyLimits>;
};

/** The tighter of two limits, where null is none. */
function tighter(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** The models both allowlists allow, where null allows every model. */
function bothAllow(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.filter((model) => b.includes(model));
}

const modelList = (json: string | null): string[] | null => (json === null ? null : (JSON.parse(json) as string[]));

/** A budget as stored: both columns, or none. */
export function budgetOf(nano: number | null, period: string | null): Pick<KeyLimits, 'budgetNano' | 'budgetPeriod'> {
  return nano !== null && isBudgetPeriod(period) ? { budgetNano: nano, budgetPeriod: period } : { budgetNano: null, budgetPeriod: null };
}

/**
 * The budget that applies: the operator's or the customer's, the smaller of both when they count
 * the same period (the console lets a customer set only that); otherwise the operator's.
 */
function effectiveBudget(operator: KeyLimits, customer: KeyLimits): Pick<KeyLimits, 'budgetNano' | 'budgetPeriod'> {
  if (operator.budgetNano === null) return { budgetNano: customer.budgetNano, budgetPeriod: customer.budgetPeriod };
  if (customer.budgetNano === null || customer.budgetPeriod !== operator.budgetPeriod) return { budgetNano: operator.budgetNano, budgetPeriod: operator.budgetPeriod };
  return { budgetNano: Math.min(operator.budgetNano, customer.budgetNano), budgetPeriod: operator.budgetPeriod };
}

/** The spend-per-period columns of a key or account row. */
export function periodSpendOf(row: {
  spent_day_start: number;
  spent_day_nano: number;
  spent_week_start: number;
  spent_week_nano: number;
  spent_month_start: number;
  spent_month_nano: number;
}): PeriodSpend {
  return {
    day: { start: Number(row.spent_day_start), nano: Number(row.spent_day_nano) },
    week: { start: Number(row.spent_week_start), nano: Number(row.spent_week_nano) },
    month: { start: Number(row.spent_month_start), nano: Number(row.spent_month_nano) },
  };
}

/** The operator's budget columns, for the fields a patch or an insert names. */
function budgetColumns(limits: Partial<KeyLimits> | undefined) {
  if (!limits) return {};
  return {
    ...(limits.budgetNano !== undefined && { budget_nano: limits.budgetNano }),
    ...(limits.budgetPeriod !== undefined && { budget_period: limits.budgetPeriod }),
  };
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  const operator: KeyLimits = {
    disabled: row.disabled === 1,
    expiresAt: row.expires_at,
    rpm: row.rpm,
    tpm: row.tpm,
    maxSpendNano: row.max_spend_nano,
    models: modelList(row.models),
    ...budgetOf(row.budget_nano, row.budget_period),
  };
  const customer: KeyLimits = {
    disabled: row.customer_disabled === 1,
    expiresAt: row.customer_expires_at,
    rpm: row.customer_rpm,
    tpm: row.customer_tpm,
    maxSpendNano: row.customer_max_spend_nano,
    models: modelList(row.customer_models),
    ...budgetOf(row.customer_budget_nano, row.customer_budget_period),
  };
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    keyHash: row.key_hash,
    keyHint: row.key_hint,
    expiresAt: tighter(operator.expiresAt, customer.expiresAt),
    disabled: operator.disabled || customer.disabled,
    revoked: row.revoked === 1,
    models: bothAllow(operator.models, customer.models),
    rpm: tighter(operator.rpm, customer.rpm),
    tpm: tighter(operator.tpm, customer.tpm),
    maxSpendNano: tighter(operator.maxSpendNano, customer.maxSpendNano),
    ...effectiveBudget(operator, customer),
    spentNano: row.spent_nano,
    periodSpend: periodSpendOf(row),
    lastUsedAt: row.last_used_at,
    seq: row.seq,
    createdAt: row.created_at,
    operator,
    customer,
  };
}

/** The customer's own limits as columns, for the fields a patch or an insert names. */
function customerColumns(limits: Partial<KeyLimits> | undefined) {
  if (!limits) return {};
  return {
    ...(limits.disabled !== undefined && { customer_disabled: limits.disabled ? 1 : 0 }),
    ...(limits.expiresAt !== undefined && { customer_expires_at: limits.expiresAt }),
    ...(limits.rpm !== undefined && { customer_rpm: limits.rpm }),
    ...(limits.tpm !== undefined && { customer_tpm: limits.tpm }),
    ...(limits.maxSpendNano !== undefined && { customer_max_spend_nano: limits.maxSpendNano }),
    ...(limits.models !== undefined && { customer_models: limits.models === null ? null : JSON.stringify(limits.models) }),
    ...(limits.budgetNano !== undefined && { customer_budget_nano: limits.budgetNano }),
    ...(limits.budgetPeriod !== undefined && { customer_budget_period: limits.budgetPeriod }),
  };
}

export function apiKeysRepository(db: Kysely<Database>) {
  return {
    async insert(input: ApiKeyInput): Promise<ApiKeyRecord> {
      const now = Date.now();
      const row = await db.transaction().execute(async (trx) =>
        trx
          .insertInto('api_keys')
          .values({
            id: input.id,
            account_id: input.accountId,
            name: input.name,
            key_hash: input.keyHash,
            key_hint: input.keyHint,
            expires_at: input.expiresAt,
            models: input.models === null ? null : JSON.stringify(input.models),
            rpm: input.rpm,
            tpm: input.tpm,
            max_spend_nano: input.maxSpendNano,
            ...budgetColumns(input),
            ...customerColumns(input.customer),
            spent_nano: 0,
            last_used_at: null,
            seq: await nextSeq(trx),
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow(),
      );
      return toApiKeyRecord(row);
    },

    async update(id: string, patch: ApiKeyPatch & { revoked?: boolean }): Promise<ApiKeyRecord | undefined> {
      const row = await db.transaction().execute(async (trx) =>
        trx
          .updateTable('api_keys')
          .set({
            ...(patch.name !== undefined && { name: patch.name }),
            ...(patch.expiresAt !== undefined && { expires_at: patch.expiresAt }),
            ...(patch.disabled !== undefined && { disabled: patch.disabled ? 1 : 0 }),
            ...(patch.revoked !== undefined && { revoked: patch.revoked ? 1 : 0 }),
            ...(patch.models !== undefined && { models: patch.models === null ? null : JSON.stringify(patch.models) }),
            ...(patch.rpm !== undefined && { rpm: patch.rpm }),
            ...(patch.tpm !== undefined && { tpm: patch.tpm }),
            ...(patch.maxSpendNano !== undefined && { max_spend_nano: patch.maxSpendNano }),
            ...budgetColumns(patch),
            ...customerColumns(patch.customer),
            seq: await nextSeq(trx),
            updated_at: Date.now(),
          })
          .where('id', '=', id)
          .where('revoked', '=', 0)
          .returningAll()
          .executeTakeFirst(),
      );
      return row && toApiKeyRecord(row);
    },

    /** A new secret for the same key (roll): the old secret stops working on the next sync. */
    async replaceSecret(id: string, keyHash: string, keyHint: string): Promise<ApiKeyRecord | undefined> {
      const row = await db.transaction().execute(async (trx) =>
        trx
          .updateTable('api_keys')
          .set({ key_hash: keyHash, key_hint: keyHint, seq: await nextSeq(trx), updated_at: Date.now() })
          .where('id', '=', id)
          .where('revoked', '=', 0)
          .returningAll()
          .executeTakeFirst(),
      );
      return row && toApiKeyRecord(row);
    },

    async get(id: string): Promise<ApiKeyRecord | undefined> {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toApiKeyRecord(row);
    },

    async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('revoked', '=', 0)
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map(toApiKeyRecord);
    },

    async changedSince(seq: number): Promise<ApiKeyRecord[]> {
      const rows = await db.selectFrom('api_keys').selectAll().where('seq', '>', seq).execute();
      return rows.map(toApiKeyRecord);
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof apiKeysRepository>;
