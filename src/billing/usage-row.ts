import type { Nano } from '../core/money.ts';
import type { Usage } from '../core/usage.ts';
import type { NewUsageRow } from '../store/schema.ts';

/** What a usage row says of one billed piece of work, whatever produced it: an HTTP call, a realtime response, a video job. */
export interface UsageFacts {
  /** unique per row: the database writes a request id once */
  requestId: string;
  accountId: string;
  keyId: string;
  model: string;
  endpoint: string;
  providerId: string | null;
  /** the HTTP status, or what stands for it (a realtime response's, a job's) */
  status: number;
  /** null: nothing was consumed */
  usage: Usage | null;
  costNano: Nano;
  /** when the work began: the row's latency runs from it */
  startedAt: number;
  /** usage counted locally because the vendor never reported it */
  estimated: boolean;
  error: string | null;
  /** the realtime session a response belongs to */
  sessionId: string | null;
}

/**
 * The usage row as of `now` — the one place a row is built (its columns: UsageTable in
 * store/schema.ts), for the write-behind and for the settlement log that keeps it with the charge.
 */
export function usageRow(facts: UsageFacts, now: number): NewUsageRow {
  const usage = facts.usage;
  return {
    request_id: facts.requestId,
    created_at: now,
    account_id: facts.accountId,
    key_id: facts.keyId,
    model: facts.model,
    endpoint: facts.endpoint,
    provider_id: facts.providerId,
    status: facts.status,
    prompt_tokens: usage?.inputTokens ?? 0,
    completion_tokens: usage?.outputTokens ?? 0,
    cached_tokens: usage?.cachedInputTokens ?? 0,
    units: usage?.units ?? 0,
    cost_nano: facts.costNano,
    latency_ms: now - facts.startedAt,
    estimated: facts.estimated ? 1 : 0,
    error_type: facts.error,
    session_id: facts.sessionId,
  };
}
