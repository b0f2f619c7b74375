import type { FastifyInstance } from 'fastify';
import type { ConsoleContext } from '../context.ts';
import { requireAdminHook } from '../security/session.ts';
import { latencyQuantile, rollupSeries, rollupTop, rollupTotals, type Totals } from '../../store/repositories/usage-stats.ts';
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
  const gateway = ctx.gateway;
  const db = gateway.store.db;

  app.get('/console/api/admin/overview', { preHandler: requireAdminHook }, async () => {
    await gateway.sync.refresh();
    const now = Date.now();
    const day = { from: now - DAY_MS, to: now + 1 };
    const month = { from: Math.floor(now / DAY_MS) * DAY_MS - 29 * DAY_MS, to: now + 1 };
    const [last24h, last30d, daily, topAccounts, topModels, providers24h] = await Promise.all([
      rollupTotals(db, day),
      rollupTotals(db, month),
      rollupSeries(db, month, { granularity: 'day', group: null }),
      rollupTop(db, month, 'account_id', 8),
      rollupTop(db, month, 'model', 8),
      rollupTop(db, day, 'provider_id', 100),
    ]);
    const names = new Map<string, string>();
    if (topAccounts.length > 0) {
      const rows = await db.selectFrom('accounts').select(['id', 'name']).where('id', 'in', topAccounts.map((a) => a.id)).execute();
      for (const r of rows) names.set(r.id, r.name);
    }
    const traffic = new Map(providers24h.map((p) => [p.id, p]));
    return {
      last_24h: summary(last24h),
      last_30d: summary(last30d),
      daily: { from: month.from, days: 30, points: daily.map((p) => ({ day: p.bucket, cost_nano: p.costNano, requests: p.requests, errors: p.errors })) },
      providers: gateway.router.all().map((p) => {
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
