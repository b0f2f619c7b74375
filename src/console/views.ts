import { keyView } from '../admin/keys.ts';
import type { Gateway } from '../gateway.ts';
import type { ApiKeyRecord, KeyLimits } from '../store/repositories/api-keys.ts';
import type { LedgerRow, UsageRow } from '../store/schema.ts';
import { usdString } from '../core/money.ts';

/** A key as the console shows it: masked hint only, money as exact USD strings. */
export function consoleKeyView(gateway: Gateway, record: ApiKeyRecord) {
  const { customer_limits: _customer, ...base } = keyView(gateway, record);
  const spent = gateway.ledger.keySpent(record.id) || record.spentNano;
  return {
    ...base,
    // the limits that apply: the tighter of the operator's and the customer's own, both shown beside
    ...consoleLimits(record),
    spent_usd: usdString(spent),
    operator_limits: consoleLimits(record.operator),
    own_limits: consoleLimits(record.customer),
  };
}

function consoleLimits(limits: KeyLimits) {
  return {
    disabled: limits.disabled,
    expires_at: limits.expiresAt === null ? null : new Date(limits.expiresAt).toISOString(),
    rpm: limits.rpm,
    tpm: limits.tpm,
    max_spend_usd: limits.maxSpendNano === null ? null : usdString(limits.maxSpendNano),
    models: limits.models,
  };
}

export function usageRowView(row: UsageRow) {
  return {
    id: row.id,
    request_id: row.request_id,
    created_at: new Date(row.created_at).toISOString(),
    account_id: row.account_id,
    key_id: row.key_id,
    model: row.model,
    endpoint: row.endpoint,
    provider_id: row.provider_id,
    status: row.status,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    cached_tokens: row.cached_tokens,
    units: row.units,
    cost_usd: usdString(row.cost_nano),
    latency_ms: row.latency_ms,
    estimated: row.estimated === 1,
    error_type: row.error_type,
  };
}

export function ledgerRowView(row: LedgerRow, balanceAfterNano: number) {
  return {
    id: row.id,
    kind: row.kind,
    amount_usd: usdString(row.amount_nano),
    balance_usd: usdString(balanceAfterNano),
    note: row.note,
    request_id: row.request_id,
    key_id: row.key_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}
