import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { allUsage, usageKeyChoices, usageLabels, usagePage, usageRowView, usageSeries, usageTop, usageTotals } from '../../admin/usage.ts';
import { invalidRequest } from '../../core/errors.ts';
import { usdString } from '../../core/money.ts';
import type { GroupBy } from '../../store/repositories/usage-stats.ts';
import type { UsageRow } from '../../store/schema.ts';
import type { ConsoleContext } from '../context.ts';
import { csvLine } from '../csv.ts';
import { ExportQuery, RowsQuery, SeriesQuery, toFilter } from './usage-query.ts';

export interface UsageScope {
  prefix: string;
  preHandler: (request: FastifyRequest) => Promise<void>;
  /** the account the caller is limited to; undefined = every account (operators) */
  accountOf(request: FastifyRequest): string | undefined;
  operator: boolean;
}

const GROUPS: Record<string, GroupBy | null> = { model: 'model', key: 'key_id', account: 'account_id', provider: 'provider_id', none: null };

/** Usage chart (rollups), rows (paged) and CSV export; the same for a customer and, across accounts, for operators. */
export function registerUsageRoutes(app: FastifyInstance, ctx: ConsoleContext, scope: UsageScope): void {
  const deps = ctx.deps;
  const filterOf = (request: FastifyRequest, q: Static<typeof ExportQuery>) => {
    if (!scope.operator && q.account_id !== undefined) throw invalidRequest('account_id filters usage across accounts: operators only.', 'account_id');
    return toFilter(q, scope.operator ? q.account_id || undefined : scope.accountOf(request));
  };

  app.get<{ Querystring: Static<typeof SeriesQuery> }>(`${scope.prefix}/usage/series`, { preHandler: scope.preHandler, schema: { querystring: SeriesQuery } }, async (request) => {
    const { granularity = 'day', group = 'model', ...q } = request.query;
    await deps.sync.refresh();
    const filter = filterOf(request, q);
    const groupBy = GROUPS[group] ?? null;
    const perAccount = filter.accountId !== undefined || filter.keyId !== undefined;
    const [points, totals, models, endpoints] = await Promise.all([
      usageSeries(deps, filter, { granularity, group: groupBy, ...(granularity === 'day' && perAccount && { dayOrigin: filter.from }) }),
      usageTotals(deps, filter),
      usageTop(deps, { ...filter, model: undefined }, 'model', 200),
      usageTop(deps, { ...filter, endpoint: undefined }, 'endpoint', 50),
    ]);
    const keys = filter.accountId ? await usageKeyChoices(deps, filter.accountId) : [];
    const labels = await usageLabels(deps, group, [...new Set(points.map((p) => p.group))]);
    return {
      granularity,
      utc_days: granularity === 'day' && !perAccount,
      group,
      points: points.map((p) => ({ bucket: p.bucket, group: p.group, requests: p.requests, errors: p.errors, cost_nano: p.costNano, tokens: p.tokens })),
      totals: {
        requests: totals.requests,
        errors: totals.errors,
        cost_usd: usdString(totals.costNano),
        prompt_tokens: totals.promptTokens,
        completion_tokens: totals.completionTokens,
      },
      models: models.map((m) => m.id).sort(),
      endpoints: endpoints.map((e) => e.id).sort(),
      keys,
      labels,
    };
  });

  app.get<{ Querystring: Static<typeof RowsQuery> }>(`${scope.prefix}/usage/rows`, { preHandler: scope.preHandler, schema: { querystring: RowsQuery } }, async (request) => {
    const { limit = 50, before, ...q } = request.query;
    // read-your-writes: rows of requests that already answered are flushed first
    await deps.sync.refresh();
    const rows = await usagePage(deps, filterOf(request, q), limit + 1, before);
    const page = rows.slice(0, limit);
    const [keys, accounts] = await Promise.all([
      usageLabels(deps, 'key', [...new Set(page.map((r) => r.key_id))]),
      scope.operator ? usageLabels(deps, 'account', [...new Set(page.map((r) => r.account_id))]) : Promise.resolve({} as Record<string, string>),
    ]);
    return {
      data: page.map((r) => ({ ...usageRowView(r, usdString), key_name: keys[r.key_id] ?? null, ...(scope.operator && { account_name: accounts[r.account_id] ?? null }) })),
      next_before: rows.length > limit ? page[page.length - 1]!.id : null,
    };
  });

  app.get<{ Querystring: Static<typeof ExportQuery> }>(`${scope.prefix}/usage/export.csv`, { preHandler: scope.preHandler, schema: { querystring: ExportQuery } }, async (request, reply) => {
    await deps.sync.refresh();
    return sendCsv(reply, allUsage(deps, filterOf(request, request.query)), scope.operator);
  });
}

const HEADER = ['created_at', 'request_id', 'key_id', 'model', 'endpoint', 'status', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'units', 'cost_usd', 'latency_ms'];

/** Streams the rows, then a totals line; exact sums in nano-dollars. */
async function sendCsv(reply: FastifyReply, rows: AsyncGenerator<UsageRow>, operator: boolean) {
  const header = operator ? ['account_id', ...HEADER] : HEADER;
  async function* lines() {
    yield csvLine(header);
    let count = 0;
    let prompt = 0;
    let completion = 0;
    let cached = 0;
    let cost = 0;
    for await (const r of rows) {
      count++;
      prompt += r.prompt_tokens;
      completion += r.completion_tokens;
      cached += r.cached_tokens;
      cost += r.cost_nano;
      const values = [new Date(r.created_at).toISOString(), r.request_id, r.key_id, r.model, r.endpoint, r.status, r.prompt_tokens, r.completion_tokens, r.cached_tokens, r.units, usdString(r.cost_nano), r.latency_ms];
      yield csvLine(operator ? [r.account_id, ...values] : values);
    }
    const totals = [`TOTAL (${count} requests)`, '', '', '', '', '', prompt, completion, cached, '', usdString(cost), ''];
    yield csvLine(operator ? ['', ...totals] : totals);
  }
  const stamp = new Date().toISOString().slice(0, 10);
  reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="usage-${stamp}.csv"`)
    .header('cache-control', 'no-store');
  return reply.send(Readable.from(lines()));
}
