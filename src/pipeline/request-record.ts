import { usageRow } from '../billing/usage-row.ts';
import { nanoToUsd } from '../core/money.ts';
import type { NewUsageRow } from '../store/schema.ts';
import type { PipelineDeps, RequestContext, RequestOutcome } from './types.ts';

/** After settlement: one usage row (written behind), one log line, the metrics. */
export function recordRequest(deps: PipelineDeps, ctx: RequestContext, endpoint: string, model: string, outcome: RequestOutcome): void {
  const now = Date.now();
  const latencyMs = now - ctx.startedAt;
  const usage = outcome.usage;
  const key = ctx.principal.key;
  // the row logged with the charge, when the outcome still says what it says (its latency runs to the charge)
  const charged = outcome.chargedRow;
  const sameFacts = charged !== undefined && charged.status === outcome.status && charged.cost_nano === outcome.costNano && charged.error_type === outcome.error;
  deps.sync.recordUsage(sameFacts ? charged : usageRowOf(ctx, endpoint, model, outcome, now));
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
  m.requestCounts.add(endpoint, outcome.status, 1);
  m.latency.observe(endpoint, latencyMs / 1000);
  if (usage) {
    m.tokenCounts.add(model, 'input', usage.inputTokens);
    m.tokenCounts.add(model, 'output', usage.outputTokens);
    if (outcome.costNano > 0) m.costCounts.add(model, '', costUsd);
  }
}

/** The call's usage row as of `now` (also what the settlement log keeps of a charged call). */
export function usageRowOf(ctx: RequestContext, endpoint: string, model: string, outcome: RequestOutcome, now: number): NewUsageRow {
  return usageRow(
    {
      requestId: ctx.requestId,
      accountId: ctx.principal.accountId,
      keyId: ctx.principal.key.id,
      model,
      endpoint,
      providerId: outcome.providerId,
      status: outcome.status,
      usage: outcome.usage,
      costNano: outcome.costNano,
      startedAt: ctx.startedAt,
      estimated: outcome.estimated,
      error: outcome.error,
      sessionId: null,
    },
    now,
  );
}
