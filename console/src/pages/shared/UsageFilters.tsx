import { Field, Select } from '../../components/Field.tsx';
import { t } from '../../i18n/index.ts';
import { statusOptions, type SeriesAnswer, type UsageView } from './usage-model.ts';

interface Props {
  view: UsageView;
  series: SeriesAnswer | null;
  operator: boolean;
  onChange: (patch: Partial<UsageView>) => void;
}

export function UsageFilters({ view, series, operator, onChange }: Props) {
  const keys = series?.keys ?? [];
  const models = [...new Set([...(series?.models ?? []), ...(view.model ? [view.model] : [])])];
  const endpoints = [...new Set([...(series?.endpoints ?? []), ...(view.endpoint ? [view.endpoint] : [])])];
  return (
    <form class="filters" aria-label={t('usage.filters')} onSubmit={(e) => e.preventDefault()}>
      <Field label={t('usage.from')} type="date" name="from" value={view.from} max={view.to} onChange={(e) => onChange({ from: (e.currentTarget as HTMLInputElement).value })} />
      <Field label={t('usage.to')} type="date" name="to" value={view.to} min={view.from} onChange={(e) => onChange({ to: (e.currentTarget as HTMLInputElement).value })} />
      {operator ? (
        <Field label={t('usage.account')} name="account" value={view.account} placeholder="acct_…" onChange={(e) => onChange({ account: (e.currentTarget as HTMLInputElement).value.trim() })} />
      ) : (
        <Select
          label={t('usage.key')}
          name="key"
          value={view.key}
          onValue={(key) => onChange({ key })}
          options={[{ value: '', label: t('usage.allKeys') }, ...keys.map((k) => ({ value: k.id, label: `${k.name ?? k.key_hint}${k.revoked ? ` (${t('usage.revoked')})` : ''}` }))]}
        />
      )}
      <Select label={t('usage.model')} name="model" value={view.model} onValue={(model) => onChange({ model })} options={[{ value: '', label: t('usage.allModels') }, ...models.map((m) => ({ value: m, label: m }))]} />
      <Select label={t('usage.status')} name="status" value={view.status} onValue={(status) => onChange({ status })} options={statusOptions()} />
      <Select
        label={t('usage.endpoint')}
        name="endpoint"
        value={view.endpoint}
        onValue={(endpoint) => onChange({ endpoint })}
        options={[{ value: '', label: t('usage.allEndpoints') }, ...endpoints.map((e) => ({ value: e, label: e }))]}
      />
    </form>
  );
}

export function ChartControls({ view, operator, onChange }: { view: UsageView; operator: boolean; onChange: (patch: Partial<UsageView>) => void }) {
  const groups: Array<{ value: UsageView['group']; label: string }> = [
    { value: 'model', label: t('usage.byModel') },
    { value: 'key', label: t('usage.byKey') },
    ...(operator
      ? [
          { value: 'account' as const, label: t('usage.byAccount') },
          { value: 'provider' as const, label: t('usage.byProvider') },
        ]
      : []),
  ];
  return (
    <div class="chart-controls">
      <Select
        label={t('usage.metric')}
        value={view.metric}
        onValue={(metric) => onChange({ metric: metric as UsageView['metric'] })}
        options={[
          { value: 'cost', label: t('usage.metricCost') },
          { value: 'requests', label: t('usage.metricRequests') },
          { value: 'tokens', label: t('usage.metricTokens') },
        ]}
      />
      <Select
        label={t('usage.granularity')}
        value={view.gran}
        onValue={(gran) => onChange({ gran: gran as UsageView['gran'] })}
        options={[
          { value: 'hour', label: t('usage.perHour') },
          { value: 'day', label: t('usage.perDay') },
        ]}
      />
      <Select label={t('usage.groupBy')} value={view.group} onValue={(group) => onChange({ group: group as UsageView['group'] })} options={groups} />
    </div>
  );
}
