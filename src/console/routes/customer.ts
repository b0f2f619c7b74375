import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { findAccount } from '../../admin/accounts.ts';
import { ledgerPage } from '../../admin/ledger.ts';
import { modelPriceView } from '../../admin/models.ts';
import { usageSeries, usageTotals } from '../../admin/usage.ts';
import { budgetSpentView } from '../../admin/budgets.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { ConsoleContext } from '../context.ts';
import { clientBaseUrl } from '../public-url.ts';
import { accountOf, requireCustomerHook } from '../security/session.ts';
import { redeemCode } from '../services/redeem.ts';
import type { Totals } from '../../store/repositories/usage-stats.ts';
import { usdString } from '../../core/money.ts';

const DAY_MS = 86_400_000;
const OverviewQuery = { type: 'object', properties: { day_start: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } }, additionalProperties: false } as const;
const LedgerQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200 }, before: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
  additionalProperties: false,
} as const;
const RedeemBody = { type: 'object', required: ['code'], properties: { code: { type: 'string', minLength: 1, maxLength: 100 } }, additionalProperties: false } as const;

export function totalsView(t: Totals) {
  return { requests: t.requests, errors: t.errors, cost_usd: usdString(t.costNano), tokens: t.promptTokens + t.completionTokens };
}

/** The customer's overview, ledger, redemption and model prices. */
export function registerCustomerRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const deps = ctx.deps;
  const opts = { preHandler: requireCustomerHook };

  app.get<{ Querystring: Static<typeof OverviewQuery> }>('/console/api/overview', { ...opts, schema: { querystring: OverviewQuery } }, async (request) => {
    const accountId = accountOf(request);
    await deps.sync.refresh();
    const now = Date.now();
    // the browser's local midnight, so "today" is the customer's today
    const dayStart = request.query.day_start ?? Math.floor(now / DAY_MS) * DAY_MS;
    if (dayStart > now || now - dayStart > 2 * DAY_MS) throw invalidRequest('day_start must be the start of the current day', 'day_start');
    const monthStart = dayStart - 29 * DAY_MS;
    const range = (from: number) => ({ from, to: now + 1, accountId });
    const [account, settings, today, week, month, daily] = await Promise.all([
      findAccount(deps, accountId),
      ctx.settings.read(),
      usageTotals(deps, range(dayStart)),
      usageTotals(deps, range(dayStart - 6 * DAY_MS)),
      usageTotals(deps, range(monthStart)),
      usageSeries(deps, range(monthStart), { granularity: 'day', group: 'model', dayOrigin: monthStart }),
    ]);
    const balance = deps.ledger.balance(accountId) ?? account.balanceNano;
    const served = deps.router.servedModels().sort();
    return {
      balance_usd: usdString(balance),
      reserved_usd: usdString(deps.ledger.reserved(accountId)),
      low_balance_usd: usdString(settings.low_balance_nano),
      low_balance: balance < settings.low_balance_nano,
      account_disabled: account.disabled,
      // the account's periodic budget and its spend this period (nulls: none)
      budget_usd: account.budgetNano === null ? null : usdString(account.budgetNano),
      budget_period: account.budgetPeriod,
      ...budgetSpentView(deps, 'account', account, usdString),
      today: totalsView(today),
      week: totalsView(week),
      month: totalsView(month),
      daily: { from: monthStart, days: 30, points: daily.map((p) => ({ day: p.bucket, model: p.group, cost_nano: p.costNano, requests: p.requests })) },
      base_url: clientBaseUrl(deps.config, request),
      example_model: served.find((m) => deps.catalogue.get(m).kind === 'chat') ?? served[0] ?? 'gpt-4o-mini',
    };
  });

  app.get<{ Querystring: Static<typeof LedgerQuery> }>('/console/api/ledger', { ...opts, schema: { querystring: LedgerQuery } }, async (request) =>
    ledgerPage(deps, accountOf(request), request.query.limit ?? 50, request.query.before, usdString),
  );

  app.post<{ Body: Static<typeof RedeemBody> }>('/console/api/redeem', { ...opts, schema: { body: RedeemBody } }, async (request) => {
    await ctx.limiter.attempt(request.ip);
    return redeemCode(ctx, accountOf(request), request.body.code);
  });

  app.get('/console/api/models', opts, async () => {
    const served = deps.router.servedModels().sort();
    return { data: served.map((id) => modelPriceView(deps.catalogue.get(id))) };
  });
}
