import { nanoToUsd } from '../core/money.ts';
import type { NewUsageRow } from '../store/schema.ts';
import type { PipelineDeps, RequestContext, RequestOutcome } from './types.ts';

/** After settlement: one usage row (written behind), one log line, the metrics. */
export function recordRequest(deps: PipelineDeps, ctx: RequestContext, endpoint: string, model: string, outcome: RequestOutcome): void {
  const now = Date.now();
  const latencyMs = now - ctx.startedAt;
  const usage = outcome.usage;
  const key = ctx.principal.key;
  deps.sync.recordUsage(usageRowOf(ctx, endpoint, model, outcome, now));
  deps.sync.touchKey(key.id, now);

  const costUsd = nanoToUsd(outcome.costNano);
  deps.requestLog.write(
    {
      reqId: ctx.requestId,
      keyId: key.id,
      accountId: ctx.principal.accountId,
      endpoint,
      model,
      provider: outcome.providerId,
      status: outcome.status,
      promptTokens: usage?.inputTokens ?? 0,
      completionTokens: usage?.outputTokens ?? 0,
      cachedTokens: usage?.cachedInputTokens ?? 0,
      costUsd,
      estimated: outcome.estimated,
      latencyMs,
      ...(outcome.error && { error: outcome.error }),
    },
    'request',
  );

  const m = deps.metrics;
  m.requests.inc({ endpoint, status: String(outcome.status) });
  m.latency.observe({ endpoint }, latencyMs / 1000);
  if (usage) {
    m.tokens.inc({ model, direction: 'input' }, usage.inputTokens);
    m.tokens.inc({ model, direction: 'output' }, usage.outputTokens);
    if (outcome.costNano > 0) m.cost.inc({ model }, costUsd);
  }
}

/** The call's usage row as of `now` (also what the settlement log keeps of a charged call). */
export function usageRowOf(ctx: RequestContext, endpoint: string, model: string, outcome: RequestOutcome, now: number): NewUsageRow {
  const usage = outcome.usage;
  return {
    request_id: ctx.requestId,
    created_at: now,
    account_id: ctx.principal.accountId,
    key_id: ctx.principal.key.id,
    model,
    endpoint,
    provider_id: outcome.providerId,
    status: outcome.status,
    prompt_tokens: usage?.inputTokens ?? 0,
    completion_tokens: usage?.outputTokens ?? 0,
    cached_tokens: usage?.cachedInputTokens ?? 0,
    units: usage?.units ?? 0,
    cost_nano: outcome.costNano,
    latency_ms: now - ctx.startedAt,
    estimated: outcome.estimated ? 1 : 0,
    error_type: outcome.error,
    session_id: null,
  };
}
