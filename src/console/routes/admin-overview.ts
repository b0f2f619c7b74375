import type { FastifyInstance } from 'fastify';
import type { ConsoleContext } from '../context.ts';
import { requireAdminHook } from '../security/session.ts';
import { namesOfAccounts, usageSeries, usageTop, usageTotals } from '../../admin/usage.ts';
import { latencyQuantile, type Totals } from '../../store/repositories/usage-stats.ts';
import { usdString } from '../../core/money.ts';

const DAY_MS = 86_400_000;

function summary(t: Totals) {
  return {
    requests: t.requests,
    errors: t.errors,
    error_rate: t.requests === 0 ? 0 : t.errors / t.requests,
    cost_usd: usdString(t.costNano),
    tokens: t.promptTokens + t.completionTokens,
    p95_latency_ms: latencyQuantile(t.latency, 0.95),
  };
}

/** The operator's overview: the last 24 hours and 30 days, provider health, top accounts and models. */
export function registerAdminOverviewRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const deps = ctx.deps;

  app.get('/console/api/admin/overview', { preHandler: requireAdminHook }, async () => {
    await deps.sync.refresh();
    const now = Date.now();
    const day = { from: now - DAY_MS, to: now + 1 };
    const month = { from: Math.floor(now / DAY_MS) * DAY_MS - 29 * DAY_MS, to: now + 1 };
    const [last24h, last30d, daily, topAccounts, topModels, providers24h] = await Promise.all([
      usageTotals(deps, day),
      usageTotals(deps, month),
      usageSeries(deps, month, { granularity: 'day', group: null }),
      usageTop(deps, month, 'account_id', 8),
      usageTop(deps, month, 'model', 8),
      usageTop(deps, day, 'provider_id', 100),
    ]);
    const names = await namesOfAccounts(deps, topAccounts.map((a) => a.id));
    const traffic = new Map(providers24h.map((p) => [p.id, p]));
    return {
      last_24h: summary(last24h),
      last_30d: summary(last30d),
      daily: { from: month.from, days: 30, points: daily.map((p) => ({ day: p.bucket, cost_nano: p.costNano, requests: p.requests, errors: p.errors })) },
      providers: deps.router.all().map((p) => {
        const t = traffic.get(p.record.id);
        return {
          id: p.record.id,
          name: p.record.name,
          type: p.record.type,
          enabled: p.record.enabled,
          health: p.breaker.state(),
          requests_24h: t?.requests ?? 0,
          errors_24h: t?.errors ?? 0,
        };
      }),
      top_accounts: topAccounts.map((a) => ({ id: a.id, name: names.get(a.id) ?? a.id, requests: a.requests, cost_usd: usdString(a.costNano) })),
      top_models: topModels.map((m) => ({ id: m.id, requests: m.requests, tokens: m.tokens, cost_usd: usdString(m.costNano) })),
    };
  });
}
