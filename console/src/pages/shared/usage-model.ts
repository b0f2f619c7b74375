import { t } from '../../i18n/index.ts';
import { withQuery } from '../../lib/api.ts';
import { dateInputValue, localMidnight, parseDateInput } from '../../lib/format.ts';

export interface UsageRow {
  id: number;
  request_id: string;
  created_at: string;
  account_id: string;
  key_id: string;
  model: string;
  endpoint: string;
  provider_id: string | null;
  status: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  units: number;
  cost_usd: string;
  latency_ms: number;
  estimated: boolean;
  error_type: string | null;
  key_name: string | null;
  account_name?: string | null;
}

export interface SeriesAnswer {
  granularity: 'hour' | 'day';
  utc_days: boolean;
  group: string;
  points: Array<{ bucket: number; group: string; requests: number; errors: number; cost_nano: number; tokens: number }>;
  totals: { requests: number; errors: number; cost_usd: string; prompt_tokens: number; completion_tokens: number };
  models: string[];
  endpoints: string[];
  keys: Array<{ id: string; name: string | null; key_hint: string; revoked: boolean }>;
  /** names of the chart's groups (accounts, keys, providers) */
  labels: Record<string, string>;
}

export interface UsageView {
  from: string;
  to: string;
  key: string;
  model: string;
  status: string;
  endpoint: string;
  account: string;
  metric: 'cost' | 'requests' | 'tokens';
  gran: 'hour' | 'day';
  group: 'model' | 'key' | 'account' | 'provider';
}

const DAY = 86_400_000;

/** The page's state lives in the address (?from=…&model=…), so a filtered view can be reloaded or shared. */
export function viewOf(search: URLSearchParams): UsageView {
  const today = localMidnight();
  const from = search.get('from') ?? dateInputValue(today - 6 * DAY);
  const to = search.get('to') ?? dateInputValue(today);
  const span = (parseDateInput(to) ?? today) - (parseDateInput(from) ?? today);
  return {
    from,
    to,
    key: search.get('key') ?? '',
    model: search.get('model') ?? '',
    status: search.get('status') ?? '',
    endpoint: search.get('endpoint') ?? '',
    account: search.get('account') ?? '',
    metric: (search.get('metric') as UsageView['metric']) ?? 'cost',
    gran: (search.get('gran') as UsageView['gran']) ?? (span <= DAY ? 'hour' : 'day'),
    group: (search.get('group') as UsageView['group']) ?? 'model',
  };
}

/** The API's filter: local days [from 00:00, to + 1 day 00:00). */
export function filterQuery(view: UsageView) {
  const from = parseDateInput(view.from) ?? localMidnight() - 6 * DAY;
  const toDay = parseDateInput(view.to) ?? localMidnight();
  return {
    from,
    to: new Date(toDay + DAY + 3_600_000).setHours(0, 0, 0, 0),
    key_id: view.key || undefined,
    model: view.model || undefined,
    status: view.status || undefined,
    endpoint: view.endpoint || undefined,
    account_id: view.account || undefined,
  };
}

export function exportHref(prefix: string, view: UsageView): string {
  return `/console/api${withQuery(`${prefix}/usage/export.csv`, filterQuery(view))}`;
}

export function metricOf(view: UsageView, p: SeriesAnswer['points'][number]): number {
  return view.metric === 'cost' ? p.cost_nano / 1e9 : view.metric === 'requests' ? p.requests : p.tokens;
}

export function statusOptions() {
  return [
    { value: '', label: t('usage.statusAll') },
    { value: 'ok', label: t('usage.statusOk') },
    { value: 'error', label: t('usage.statusError') },
    { value: '402', label: '402' },
    { value: '429', label: '429' },
  ];
}
