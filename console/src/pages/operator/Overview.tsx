import { useMemo } from 'preact/hooks';
import { Chart } from '../../components/Chart.tsx';
import { Layout } from '../../components/Layout.tsx';
import { Link } from '../../components/Link.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { Badge, Stat, Table } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { get } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import { cents, compactMoney, integer, percent, shortDate } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import type { PageProps } from '../types.ts';

interface Summary {
  requests: number;
  errors: number;
  error_rate: number;
  cost_usd: string;
  tokens: number;
  p95_latency_ms: number | null;
}

interface OverviewData {
  last_24h: Summary;
  last_30d: Summary;
  daily: { from: number; days: number; points: Array<{ day: number; cost_nano: number; requests: number; errors: number }> };
  providers: Array<{ id: string; name: string; type: string; enabled: boolean; health: 'closed' | 'open' | 'half-open'; requests_24h: number; errors_24h: number }>;
  top_accounts: Array<{ id: string; name: string; requests: number; cost_usd: string }>;
  top_models: Array<{ id: string; requests: number; tokens: number; cost_usd: string }>;
}

const DAY = 86_400_000;

export function latency(ms: number | null): string {
  if (ms === null) return '—';
  if (!Number.isFinite(ms)) return '> 30 s';
  return ms >= 1000 ? `≤ ${ms / 1000} s` : `≤ ${ms} ms`;
}

export function healthBadge(enabled: boolean, health: string) {
  if (!enabled) return <Badge kind="muted">{t('providers.disabled')}</Badge>;
  if (health === 'open') return <Badge kind="bad">{t('providers.health.open')}</Badge>;
  if (health === 'half-open') return <Badge kind="warn">{t('providers.health.half')}</Badge>;
  return <Badge kind="ok">{t('providers.health.ok')}</Badge>;
}

export function OperatorOverview({ user, path }: PageProps) {
  const { data, error } = useData(() => get<OverviewData>('/admin/overview'));
  const chart = useMemo(() => {
    if (!data) return null;
    const days = Array.from({ length: data.daily.days }, (_, i) => data.daily.from + i * DAY);
    const byDay = new Map(data.daily.points.map((p) => [p.day, p]));
    return { days, series: [{ label: t('overview.spend'), values: days.map((d) => (byDay.get(d)?.cost_nano ?? 0) / 1e9) }] };
  }, [data]);

  return (
    <Layout user={user} path={path} title={t('ops.title')}>
      <ErrorText error={error} />
      {data && (
        <>
          <section class="stats" aria-label={t('ops.last24h')}>
            <Stat label={t('ops.spend24h')} value={<Money usd={data.last_24h.cost_usd} />} sub={t('ops.spend30d', { amount: cents(data.last_30d.cost_usd) })} />
            <Stat label={t('ops.requests24h')} value={integer(data.last_24h.requests)} sub={t('ops.requests30d', { n: integer(data.last_30d.requests) })} />
            <Stat label={t('ops.errorRate24h')} value={percent(data.last_24h.error_rate)} sub={t('overview.errorsN', { n: integer(data.last_24h.errors) })} />
            <Stat label={t('ops.p95')} value={latency(data.last_24h.p95_latency_ms)} sub={t('ops.p95Hint')} />
          </section>
          <section class="card">
            <h2>{t('ops.dailySpend')}</h2>
            {chart && <Chart x={chart.days} series={chart.series} kind="bars" bucketMs={DAY} label={t('ops.dailySpend')} formatY={compactMoney} formatX={(ms) => shortDate(ms, true)} />}
            <p class="hint">{t('usage.utcDays')}</p>
          </section>
          <section class="card flush">
            <div class="card-head pad">
              <h2>{t('ops.providerHealth')}</h2>
              <Link href="/admin/providers">{t('ops.manage')}</Link>
            </div>
            <Table
              caption={t('ops.providerHealth')}
              rows={data.providers}
              rowKey={(p) => p.id}
              empty={t('providers.empty')}
              columns={[
                { label: t('providers.name'), rowHeader: true, render: (p) => p.name },
                { label: t('providers.type'), render: (p) => p.type },
                { label: t('providers.healthLabel'), render: (p) => healthBadge(p.enabled, p.health) },
                { label: t('ops.requests24hShort'), align: 'right', render: (p) => integer(p.requests_24h) },
                { label: t('ops.errors24hShort'), align: 'right', render: (p) => integer(p.errors_24h) },
              ]}
            />
          </section>
          <div class="grid-2">
            <section class="card flush">
              <h2 class="card-title">{t('ops.topAccounts')}</h2>
              <Table
                caption={t('ops.topAccounts')}
                rows={data.top_accounts}
                rowKey={(a) => a.id}
                empty={t('common.noData')}
                columns={[
                  { label: t('accounts.name'), rowHeader: true, render: (a) => <Link href={`/admin/accounts/${a.id}`}>{a.name}</Link> },
                  { label: t('usage.requests'), align: 'right', render: (a) => integer(a.requests) },
                  { label: t('ops.spend30dShort'), align: 'right', render: (a) => <Money usd={a.cost_usd} /> },
                ]}
              />
            </section>
            <section class="card flush">
              <h2 class="card-title">{t('ops.topModels')}</h2>
              <Table
                caption={t('ops.topModels')}
                rows={data.top_models}
                rowKey={(m) => m.id}
                empty={t('common.noData')}
                columns={[
                  { label: t('models.model'), rowHeader: true, render: (m) => <code>{m.id}</code> },
                  { label: t('usage.tokens'), align: 'right', render: (m) => integer(m.tokens) },
                  { label: t('ops.spend30dShort'), align: 'right', render: (m) => <Money usd={m.cost_usd} /> },
                ]}
              />
            </section>
          </div>
        </>
      )}
    </Layout>
  );
}
