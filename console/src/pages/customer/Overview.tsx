import { useMemo } from 'preact/hooks';
import { Chart, toSeries } from '../../components/Chart.tsx';
import { CodeTabs, CopyButton } from '../../components/CopyButton.tsx';
import { Layout } from '../../components/Layout.tsx';
import { Link } from '../../components/Link.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { Stat } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { get } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import { BudgetLine } from '../../components/BudgetLine.tsx';
import { cents, compactMoney, integer, localMidnight, money, percent, shortDate } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import type { BudgetView } from '../../components/BudgetLine.tsx';
import type { PageProps } from '../types.ts';

interface Totals {
  requests: number;
  errors: number;
  cost_usd: string;
  tokens: number;
}

export interface OverviewData extends BudgetView {
  balance_usd: string;
  reserved_usd: string;
  low_balance_usd: string;
  low_balance: boolean;
  account_disabled: boolean;
  today: Totals;
  week: Totals;
  month: Totals;
  daily: { from: number; days: number; points: Array<{ day: number; model: string; cost_nano: number; requests: number }> };
  base_url: string;
  example_model: string;
}

const DAY = 86_400_000;

export function BalanceBanners({ data }: { data: Pick<OverviewData, 'balance_usd' | 'low_balance' | 'low_balance_usd' | 'account_disabled'> }) {
  const empty = Number(data.balance_usd) <= 0;
  return (
    <>
      {data.account_disabled && <Notice kind="error">{t('overview.disabled')}</Notice>}
      {data.low_balance && (
        <div class="banner" role="alert" data-testid="low-balance">
          <strong>{empty ? t('overview.emptyTitle') : t('overview.lowTitle')}</strong>
          <span>{empty ? t('overview.emptyText') : t('overview.lowText', { threshold: money(data.low_balance_usd) })}</span>
          <Link href="/billing" class="button small">
            {t('overview.topUp')}
          </Link>
        </div>
      )}
    </>
  );
}

function snippetTabs(base: string, model: string) {
  const s = snippets(base, model);
  return [
    { id: 'curl', label: 'curl', code: s.curl },
    { id: 'python', label: 'Python', code: s.python },
    { id: 'node', label: 'Node.js', code: s.node },
    { id: 'responses', label: 'Responses API', code: s.responses },
    { id: 'genai', label: 'Google GenAI', code: s.genai },
  ];
}

function snippets(base: string, model: string) {
  const key = 'sk-…';
  return {
    curl: `curl ${base}/chat/completions \\\n  -H "Authorization: Bearer ${key}" \\\n  -H "Content-Type: application/json" \\\n  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello!"}]}'`,
    python: `from openai import OpenAI\n\nclient = OpenAI(api_key="${key}", base_url="${base}")\nreply = client.chat.completions.create(\n    model="${model}",\n    messages=[{"role": "user", "content": "Hello!"}],\n)\nprint(reply.choices[0].message.content)`,
    node: `import OpenAI from 'openai';\n\nconst client = new OpenAI({ apiKey: '${key}', baseURL: '${base}' });\nconst reply = await client.chat.completions.create({\n  model: '${model}',\n  messages: [{ role: 'user', content: 'Hello!' }],\n});\nconsole.log(reply.choices[0].message.content);`,
    // the Responses API (OpenAI's newer interface, the Vercel AI SDK's default) on the same base URL, any model
    responses: `import OpenAI from 'openai';\n\nconst client = new OpenAI({ apiKey: '${key}', baseURL: '${base}' });\nconst response = await client.responses.create({\n  model: '${model}',\n  input: 'Hello!',\n});\nconsole.log(response.output_text);`,
    // Google's client takes the origin and adds /v1 (or /v1beta, with apiVersion) itself
    genai: `import { GoogleGenAI } from '@google/genai';\n\nconst ai = new GoogleGenAI({ apiKey: '${key}', httpOptions: { baseUrl: '${base.replace(/\/v1\/?$/, '')}' } });\nconst reply = await ai.models.generateContent({ model: '${model}', contents: 'Hello!' });\nconsole.log(reply.text);`,
  };
}

export function Overview({ user, path }: PageProps) {
  const { data, error } = useData(() => get<OverviewData>('/overview', { day_start: localMidnight() }));
  const chart = useMemo(() => {
    if (!data) return null;
    const days = Array.from({ length: data.daily.days }, (_, i) => data.daily.from + i * DAY);
    const series = toSeries(data.daily.points, days, (p) => p.day, (p) => p.model, (p) => p.cost_nano / 1e9, (g) => g);
    return { days, series };
  }, [data]);

  return (
    <Layout user={user} path={path} title={t('overview.title')}>
      <ErrorText error={error} />
      {data && (
        <>
          <BalanceBanners data={data} />
          <section class="stats" aria-label={t('overview.figures')}>
            <Stat
              label={t('overview.balance')}
              long={cents(data.balance_usd).length > 11}
              value={<Money usd={data.balance_usd} testId="balance" />}
              sub={
                <>
                  <Link href="/billing">{t('overview.viewLedger')}</Link>
                  <BudgetLine of={data} testId="account-budget" />
                </>
              }
            />
            <Stat label={t('overview.spendToday')} value={<Money usd={data.today.cost_usd} />} sub={t('overview.requestsN', { n: integer(data.today.requests) })} />
            <Stat label={t('overview.spend7')} value={<Money usd={data.week.cost_usd} />} sub={t('overview.requestsN', { n: integer(data.week.requests) })} />
            <Stat label={t('overview.spend30')} value={<Money usd={data.month.cost_usd} />} sub={t('overview.requestsN', { n: integer(data.month.requests) })} />
            <Stat
              label={t('overview.errorRate')}
              value={percent(data.month.requests === 0 ? 0 : data.month.errors / data.month.requests)}
              sub={t('overview.errorsN', { n: integer(data.month.errors) })}
            />
          </section>
          <section class="card">
            <h2>{t('overview.dailySpend')}</h2>
            {chart && <Chart x={chart.days} series={chart.series} kind="bars" bucketMs={DAY} label={t('overview.dailySpend')} formatY={compactMoney} formatX={(ms) => shortDate(ms)} />}
          </section>
          <section class="card">
            <div class="card-head">
              <h2>{t('overview.quickStart')}</h2>
              <Link href="/keys" class="button small primary">
                {t('overview.createKey')}
              </Link>
            </div>
            <p>{t('overview.baseUrlIntro')}</p>
            <div class="base-url">
              <code data-testid="base-url">{data.base_url}</code>
              <CopyButton text={data.base_url} />
            </div>
            <p class="hint">{t('overview.baseUrlHint')}</p>
            <div class="snippets">
              <CodeTabs label={t('overview.snippets')} tabs={snippetTabs(data.base_url, data.example_model)} />
            </div>
          </section>
        </>
      )}
    </Layout>
  );
}
