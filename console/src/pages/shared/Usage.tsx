import { useMemo } from 'preact/hooks';
import { Chart, toSeries } from '../../components/Chart.tsx';
import { Layout } from '../../components/Layout.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { Badge, Pager, Stat, Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { get } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import { compactMoney, dateTime, hour, integer, percent, shortDate } from '../../lib/format.ts';
import { setSearch, useRoute } from '../../lib/router.ts';
import { useData } from '../../lib/use-data.ts';
import { usePager, type Page } from '../../lib/use-pager.ts';
import type { PageProps } from '../types.ts';
import { exportHref, filterQuery, metricOf, viewOf, type SeriesAnswer, type UsageRow, type UsageView } from './usage-model.ts';
import { ChartControls, UsageFilters } from './UsageFilters.tsx';

const HOUR = 3_600_000;
const DAY = 86_400_000;

function buckets(answer: SeriesAnswer, from: number, to: number): number[] {
  const out: number[] = [];
  if (answer.granularity === 'hour') {
    for (let b = Math.floor(from / HOUR) * HOUR; b < to; b += HOUR) out.push(b);
  } else if (answer.utc_days) {
    for (let b = Math.floor(from / DAY) * DAY; b < to; b += DAY) out.push(b);
  } else {
    for (let b = from; b < to; b = new Date(b + DAY + HOUR).setHours(0, 0, 0, 0)) out.push(b);
  }
  return out;
}

/** Usage of one account (customers) or of all of them (operators): chart from rollups, rows paged, CSV. */
export function Usage({ user, path }: PageProps) {
  const operator = user.role === 'admin';
  const prefix = operator ? '/admin' : '';
  const { search } = useRoute();
  const view = viewOf(search);
  const query = filterQuery(view);
  const filterKey = JSON.stringify(query);
  const change = (patch: Partial<UsageView>) => setSearch({ ...view, ...patch } as unknown as Record<string, string>);

  const series = useData(() => get<SeriesAnswer>(`${prefix}/usage/series`, { ...query, granularity: view.gran, group: view.group }), [filterKey, view.gran, view.group]);
  const pager = usePager((before: number | undefined) => get<Page<UsageRow, number>>(`${prefix}/usage/rows`, { ...query, limit: 50, before }), [filterKey]);

  const chart = useMemo(() => {
    const answer = series.data;
    if (!answer) return null;
    const x = buckets(answer, query.from, query.to);
    const label = (g: string) => answer.labels[g] ?? (g || '—');
    return { x, series: toSeries(answer.points, x, (p) => p.bucket, (p) => p.group, (p) => metricOf(view, p), label), utc: answer.utc_days, gran: answer.granularity };
  }, [series.data, view.metric]);

  const totals = series.data?.totals;
  const columns: Array<Column<UsageRow>> = [
    { label: t('usage.time'), rowHeader: true, render: (r) => <time class="nowrap" dateTime={r.created_at}>{dateTime(r.created_at)}</time> },
    ...(operator ? [{ label: t('usage.account'), render: (r: UsageRow) => <span title={r.account_id}>{r.account_name ?? r.account_id}</span> }] : []),
    { label: t('usage.key'), render: (r) => <span title={r.key_id}>{r.key_name ?? r.key_id}</span> },
    { label: t('usage.model'), render: (r) => <code>{r.model}</code> },
    { label: t('usage.endpoint'), render: (r) => <span class="small">{r.endpoint}</span> },
    { label: t('usage.status'), render: (r) => <Badge kind={r.status < 400 ? 'ok' : r.status === 499 ? 'warn' : 'bad'}>{r.status}</Badge> },
    {
      label: t('usage.tokens'),
      align: 'right',
      render: (r) => (
        <span title={t('usage.tokensTitle')}>
          {integer(r.prompt_tokens)} / {integer(r.completion_tokens)}
          {r.cached_tokens > 0 && <div class="muted small">{t('usage.cachedN', { n: integer(r.cached_tokens) })}</div>}
        </span>
      ),
    },
    // seconds, characters or images, for the endpoints priced by them
    { label: t('usage.units'), align: 'right', render: (r) => (r.units > 0 ? integer(r.units) : '—') },
    { label: t('usage.cost'), align: 'right', render: (r) => <Money usd={r.cost_usd} testId="row-cost" /> },
    { label: t('usage.latency'), align: 'right', render: (r) => `${integer(r.latency_ms)} ms` },
  ];

  return (
    <Layout
      user={user}
      path={path}
      title={operator ? t('usage.titleAll') : t('usage.title')}
      actions={
        <a class="button" href={exportHref(prefix, view)} download>
          {t('usage.exportCsv')}
        </a>
      }
    >
      <UsageFilters view={view} series={series.data} operator={operator} onChange={change} />
      <ErrorText error={series.error ?? pager.error} />
      <section class="stats" aria-label={t('usage.totals')}>
        <Stat label={t('usage.requests')} value={totals ? integer(totals.requests) : '…'} />
        <Stat label={t('usage.errors')} value={totals ? integer(totals.errors) : '…'} sub={totals && totals.requests > 0 ? percent(totals.errors / totals.requests) : undefined} />
        <Stat label={t('usage.spend')} value={totals ? <Money usd={totals.cost_usd} /> : '…'} />
        <Stat label={t('usage.tokens')} value={totals ? integer(totals.prompt_tokens + totals.completion_tokens) : '…'} sub={totals ? `${integer(totals.prompt_tokens)} / ${integer(totals.completion_tokens)}` : undefined} />
      </section>
      <section class="card">
        <div class="card-head">
          <h2>{t(`usage.chart.${view.metric}`)}</h2>
          <ChartControls view={view} operator={operator} onChange={change} />
        </div>
        {chart && (
          <Chart
            x={chart.x}
            series={chart.series}
            kind="bars"
            bucketMs={chart.gran === 'hour' ? HOUR : DAY}
            label={t(`usage.chart.${view.metric}`)}
            formatY={view.metric === 'cost' ? compactMoney : (v) => integer(v)}
            formatX={chart.gran === 'hour' ? hour : (ms) => shortDate(ms, chart.utc)}
          />
        )}
        {chart?.utc && <p class="hint">{t('usage.utcDays')}</p>}
      </section>
      <section class="card flush">
        <h2 class="card-title">{t('usage.requestsTable')}</h2>
        <Table caption={t('usage.requestsTable')} columns={columns} rows={pager.rows} rowKey={(r) => r.id} empty={t('usage.empty')} loading={pager.loading} />
        <Pager pager={pager} />
      </section>
    </Layout>
  );
}
