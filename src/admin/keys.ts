import { invalidRequest, notFound } from '../core/errors.ts';
import { newApiKey, newId } from '../core/ids.ts';
import { nanoToUsd, usdToNano, type MoneyFormat } from '../core/money.ts';
import { hashApiKey, keyHint } from '../auth/key-hash.ts';
import { keysPage } from '../store/repositories/api-keys-page.ts';
import type { ApiKeyRecord, KeyLimits } from '../store/repositories/api-keys.ts';
import type { AdminDeps } from './deps.ts';
import { findAccount } from './accounts.ts';
import { budgetPatch, budgetSpentView } from './budgets.ts';
import type { KeyCreate, KeyPatch } from './schemas.ts';

/** Who sets a key's limits: the operator's hold whatever the customer sets; the customer's may only tighten them. */
export type LimitsSetBy = 'operator' | 'customer';

/** A set of limits in the admin API's names (money: USD numbers for the admin API, exact strings for the console). */
export function limitsView(limits: KeyLimits): ReturnType<typeof limitsOf<number>>;
export function limitsView<T>(limits: KeyLimits, money: MoneyFormat<T>): ReturnType<typeof limitsOf<T>>;
export function limitsView(limits: KeyLimits, money: MoneyFormat<unknown> = nanoToUsd) {
  return limitsOf(limits, money);
}

function limitsOf<T>(limits: KeyLimits, money: MoneyFormat<T>) {
  return {
    disabled: limits.disabled,
    expires_at: limits.expiresAt === null ? null : new Date(limits.expiresAt).toISOString(),
    rpm: limits.rpm,
    tpm: limits.tpm,
    max_spend_usd: limits.maxSpendNano === null ? null : money(limits.maxSpendNano),
    models: limits.models,
    budget_usd: limits.budgetNano === null ? null : money(limits.budgetNano),
    budget_period: limits.budgetPeriod,
  };
}

/**
 * A key as the admin API shows it: the limit fields are the operator's (what the admin API
 * sets), `customer_limits` the customer's own from the console, `status` what applies (the
 * tighter of the two).
 */
export function keyView(deps: AdminDeps, record: ApiKeyRecord): ReturnType<typeof keyOf<number>>;
export function keyView<T>(deps: AdminDeps, record: ApiKeyRecord, money: MoneyFormat<T>): ReturnType<typeof keyOf<T>>;
export function keyView(deps: AdminDeps, record: ApiKeyRecord, money: MoneyFormat<unknown> = nanoToUsd) {
  return keyOf(deps, record, money);
}

function keyOf<T>(deps: AdminDeps, record: ApiKeyRecord, money: MoneyFormat<T>) {
  const now = Date.now();
  return {
    id: record.id,
    account_id: record.accountId,
    name: record.name,
    key_hint: record.keyHint,
    status: record.disabled ? 'disabled' : record.expiresAt !== null && record.expiresAt <= now ? 'expired' : 'active',
    ...limitsOf(record.operator, money),
    customer_limits: limitsOf(record.customer, money),
    spent_usd: money(deps.ledger.keySpent(record.id) || record.spentNano),
    // against the budget that applies (the tighter of the operator's and the customer's own)
    ...budgetSpentView(deps, 'key', record, money),
    last_used_at: record.lastUsedAt === null ? null : new Date(record.lastUsedAt).toISOString(),
    created_at: new Date(record.createdAt).toISOString(),
  };
}

/** A key that exists and is not revoked, else 404. */
export async function findKey(deps: AdminDeps, id: string): Promise<ApiKeyRecord> {
  const record = await deps.repos.apiKeys.get(id);
  if (!record || record.revoked) throw notFound(`No key with id "${id}".`, 'id');
  return record;
}

/** One page of an account's live keys, newest first, by id cursor. */
export async function accountKeysPage(deps: AdminDeps, accountId: string, limit: number, before?: string): Promise<ApiKeyRecord[]> {
  return keysPage(deps.store.db, accountId, limit, before);
}

function parseExpiry(value: string | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw invalidRequest('expires_at must be an ISO 8601 date-time', 'expires_at');
  return at;
}

/** Creates a key; the only time its secret exists outside the caller's hands is this answer. */
export async function createKey(deps: AdminDeps, accountId: string, body: KeyCreate, setBy: LimitsSetBy = 'operator'): Promise<{ record: ApiKeyRecord; secret: string }> {
  await findAccount(deps, accountId);
  const expiresAt = parseExpiry(body.expires_at) ?? null;
  if (expiresAt !== null && expiresAt <= Date.now()) throw invalidRequest('expires_at must be in the future', 'expires_at');
  const secret = newApiKey();
  const limits = {
    expiresAt,
    models: body.models ?? null,
    rpm: body.rpm ?? null,
    tpm: body.tpm ?? null,
    maxSpendNano: body.max_spend_usd == null ? null : usdToNano(body.max_spend_usd),
    ...budgetPatch(body, undefined),
  };
  const record = await deps.repos.apiKeys.insert({
    id: newId('key'),
    accountId,
    name: body.name ?? null,
    keyHash: hashApiKey(secret),
    keyHint: keyHint(secret),
    ...(setBy === 'operator' ? limits : { expiresAt: null, models: null, rpm: null, tpm: null, maxSpendNano: null, budgetNano: null, budgetPeriod: null, customer: limits }),
  });
  await deps.sync.refresh();
  return { record, secret };
}

export async function updateKey(deps: AdminDeps, id: string, body: KeyPatch, setBy: LimitsSetBy = 'operator'): Promise<ApiKeyRecord> {
  const current = body.budget_usd !== undefined || body.budget_period !== undefined ? await deps.repos.apiKeys.get(id) : undefined;
  const limits = limitsPatch(body, current && limitsSetBy(current, setBy));
  const record = await deps.repos.apiKeys.update(id, {
    ...(body.name !== undefined && { name: body.name }),
    ...(setBy === 'operator' ? limits : { customer: limits }),
  });
  if (!record) throw notFound(`No key with id "${id}".`, 'id');
  await deps.sync.refresh();
  return record;
}

/** The limits `setBy` changes on a key; a customer's budget without a period of its own counts the operator's. */
export function limitsSetBy(record: ApiKeyRecord, setBy: LimitsSetBy): KeyLimits {
  if (setBy === 'operator') return record.operator;
  return { ...record.customer, budgetPeriod: record.customer.budgetPeriod ?? record.operator.budgetPeriod };
}

/** The limits a patch names, in the store's units; `current`: the limits it changes (for a budget's period). */
export function limitsPatch(body: KeyPatch, current?: KeyLimits): Partial<KeyLimits> {
  const expiresAt = parseExpiry(body.expires_at);
  return {
    ...(expiresAt !== undefined && { expiresAt }),
    ...(body.disabled !== undefined && { disabled: body.disabled }),
    ...(body.models !== undefined && { models: body.models }),
    ...(body.rpm !== undefined && { rpm: body.rpm }),
    ...(body.tpm !== undefined && { tpm: body.tpm }),
    ...(body.max_spend_usd !== undefined && { maxSpendNano: body.max_spend_usd === null ? null : usdToNano(body.max_spend_usd) }),
    ...budgetPatch(body, current),
  };
}

export async function revokeKey(deps: AdminDeps, id: string): Promise<void> {
  const record = await deps.repos.apiKeys.update(id, { revoked: true, disabled: true });
  if (!record) throw notFound(`No key with id "${id}".`, 'id');
  await deps.sync.refresh();
}

/** Rolls a key: same id, limits and history, a new secret (shown once); the old one stops working. */
export async function rollKey(deps: AdminDeps, id: string): Promise<{ record: ApiKeyRecord; secret: string }> {
  const secret = newApiKey();
  const record = await deps.repos.apiKeys.replaceSecret(id, hashApiKey(secret), keyHint(secret));
  if (!record) throw notFound(`No key with id "${id}".`, 'id');
  await deps.sync.refresh();
  return { record, secret };
}
