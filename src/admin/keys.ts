import { invalidRequest, notFound } from '../core/errors.ts';
import { newApiKey, newId } from '../core/ids.ts';
import { nanoToUsd, usdToNano } from '../core/money.ts';
import { hashApiKey, keyHint } from '../auth/key-hash.ts';
import type { Gateway } from '../gateway.ts';
import type { ApiKeyRecord } from '../store/repositories/api-keys.ts';
import { findAccount } from './accounts.ts';
import type { KeyCreate, KeyPatch } from './schemas.ts';

export function keyView(gateway: Gateway, record: ApiKeyRecord) {
  const now = Date.now();
  return {
    id: record.id,
    account_id: record.accountId,
    name: record.name,
    key_hint: record.keyHint,
    status: record.disabled ? 'disabled' : record.expiresAt !== null && record.expiresAt <= now ? 'expired' : 'active',
    disabled: record.disabled,
    expires_at: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
    models: record.models,
    rpm: record.rpm,
    tpm: record.tpm,
    max_spend_usd: record.maxSpendNano === null ? null : nanoToUsd(record.maxSpendNano),
    spent_usd: nanoToUsd(gateway.ledger.keySpent(record.id) || record.spentNano),
    last_used_at: record.lastUsedAt === null ? null : new Date(record.lastUsedAt).toISOString(),
    created_at: new Date(record.createdAt).toISOString(),
  };
}

function parseExpiry(value: string | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw invalidRequest('expires_at must be an ISO 8601 date-time', 'expires_at');
  return at;
}

/** Creates a key; the only time its secret exists outside the caller's hands is this answer. */
export async function createKey(gateway: Gateway, accountId: string, body: KeyCreate): Promise<{ record: ApiKeyRecord; secret: string }> {
  await findAccount(gateway, accountId);
  const expiresAt = parseExpiry(body.expires_at) ?? null;
  if (expiresAt !== null && expiresAt <= Date.now()) throw invalidRequest('expires_at must be in the future', 'expires_at');
  const secret = newApiKey();
  const record = await gateway.repos.apiKeys.insert({
    id: newId('key'),
    accountId,
    name: body.name ?? null,
    keyHash: hashApiKey(secret),
    keyHint: keyHint(secret),
    expiresAt,
    models: body.models ?? null,
    rpm: body.rpm ?? null,
    tpm: body.tpm ?? null,
    maxSpendNano: body.max_spend_usd == null ? null : usdToNano(body.max_spend_usd),
  });
  await gateway.sync.refresh();
  return { record, secret };
}

export async function updateKey(gateway: Gateway, id: string, body: KeyPatch): Promise<ApiKeyRecord> {
  const expiresAt = parseExpiry(body.expires_at);
  const record = await gateway.repos.apiKeys.update(id, {
    ...(body.name !== undefined && { name: body.name }),
    ...(expiresAt !== undefined && { expiresAt }),
    ...(body.disabled !== undefined && { disabled: body.disabled }),
    ...(body.models !== undefined && { models: body.models }),
    ...(body.rpm !== undefined && { rpm: body.rpm }),
    ...(body.tpm !== undefined && { tpm: body.tpm }),
    ...(body.max_spend_usd !== undefined && { maxSpendNano: body.max_spend_usd === null ? null : usdToNano(body.max_spend_usd) }),
  });
  if (!record) throw notFound(`No key with id "${id}".`, 'id');
  await gateway.sync.refresh();
  return record;
}

export async function revokeKey(gateway: Gateway, id: string): Promise<void> {
  const record = await gateway.repos.apiKeys.update(id, { revoked: true, disabled: true });
  if (!record) throw notFound(`No key with id "${id}".`, 'id');
  await gateway.sync.refresh();
}

/** Rolls a key: same id, limits and history, a new secret (shown once); the old one stops working. */
export async function rollKey(gateway: Gateway, id: string): Promise<{ record: ApiKeyRecord; secret: string }> {
  const secret = newApiKey();
  const record = await gateway.repos.apiKeys.replaceSecret(id, hashApiKey(secret), keyHint(secret));
  if (!record) throw notFound(`No key with id "${id}".`, 'id');
  await gateway.sync.refresh();
  return { record, secret };
}
