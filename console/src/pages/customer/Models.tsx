import { Layout } from '../../components/Layout.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { get } from '../../lib/api.ts';
import { money } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import type { PageProps } from '../types.ts';

export type TokenPrices = Partial<
  Record<'input_per_mtok' | 'output_per_mtok' | 'cached_input_per_mtok' | 'cache_write_per_mtok' | 'audio_input_per_mtok' | 'cached_audio_input_per_mtok' | 'audio_output_per_mtok', string>
>;

export type Pricing = TokenPrices &
  Partial<Record<'per_second' | 'per_mchar' | 'per_request', string>> & {
    per_image?: Record<string, Record<string, string>>;
    /** paid service tiers' token prices */
    service_tiers?: Record<string, TokenPrices>;
    /** USD per call of a built-in tool (web_search…) */
    per_tool_call?: Record<string, string>;
    long_context?: TokenPrices & { threshold_tokens: number };
  };

export interface ModelPrice {
  id: string;
  kind: string | null;
  pricing: Pricing | null;
}

const KINDS = ['chat', 'completion', 'embedding', 'image', 'speech', 'transcription', 'moderation', 'rerank', 'video', 'realtime'] as const;

export function kindLabel(kind: string | null): string {
  return kind && (KINDS as readonly string[]).includes(kind) ? t(`models.kind.${kind as (typeof KINDS)[number]}`) : (kind ?? '—');
}

const price = (v: string | undefined) => (v === undefined ? <span class="muted">—</span> : money(v));

/** Other prices (per request, second, character, image) in one cell. */
export function otherPrices(p: Pricing | null) {
  if (!p) return [];
  const parts: string[] = [];
  if (p.per_request) parts.push(t('models.perRequest', { price: money(p.per_request) }));
  if (p.per_second) parts.push(t('models.perSecond', { price: money(p.per_second) }));
  if (p.per_mchar) parts.push(t('models.perMchar', { price: money(p.per_mchar) }));
  for (const [quality, sizes] of Object.entries(p.per_image ?? {})) {
    for (const [size, usd] of Object.entries(sizes)) parts.push(t('models.perImage', { quality, size, price: money(usd) }));
  }
  const or = (v: string | undefined, fallback: string | undefined) => money(v ?? fallback ?? '0');
  if (p.audio_input_per_mtok || p.audio_output_per_mtok) parts.push(t('models.perAudio', { input: or(p.audio_input_per_mtok, p.input_per_mtok), output: or(p.audio_output_per_mtok, p.output_per_mtok) }));
  if (p.cache_write_per_mtok) parts.push(t('models.perCacheWrite', { price: money(p.cache_write_per_mtok) }));
  for (const [tool, usd] of Object.entries(p.per_tool_call ?? {})) parts.push(t('models.perToolCall', { tool, price: money(usd) }));
  for (const [tier, prices] of Object.entries(p.service_tiers ?? {})) {
    parts.push(t('models.tier', { tier, input: or(prices.input_per_mtok, p.input_per_mtok), output: or(prices.output_per_mtok, p.output_per_mtok) }));
  }
  const long = p.long_context;
  if (long) parts.push(t('models.longContext', { threshold: long.threshold_tokens, input: or(long.input_per_mtok, p.input_per_mtok), output: or(long.output_per_mtok, p.output_per_mtok) }));
  return parts;
}

export function Models({ user, path }: PageProps) {
  const { data, error, loading } = useData(() => get<{ data: ModelPrice[] }>('/models'));
  const columns: Array<Column<ModelPrice>> = [
    { label: t('models.model'), rowHeader: true, render: (m) => <code>{m.id}</code> },
    { label: t('models.kind'), render: (m) => kindLabel(m.kind) },
    { label: t('models.input'), align: 'right', render: (m) => price(m.pricing?.input_per_mtok) },
    { label: t('models.cachedInput'), align: 'right', render: (m) => price(m.pricing?.cached_input_per_mtok) },
    { label: t('models.output'), align: 'right', render: (m) => price(m.pricing?.output_per_mtok) },
    {
      label: t('models.other'),
      render: (m) => {
        const parts = otherPrices(m.pricing);
        return parts.length ? parts.map((p) => <div key={p}>{p}</div>) : <span class="muted">—</span>;
      },
    },
  ];
  return (
    <Layout user={user} path={path} title={t('models.title')}>
      <p class="lead">{t('models.intro')}</p>
      <ErrorText error={error} />
      <Table caption={t('models.title')} columns={columns} rows={data?.data ?? []} rowKey={(m) => m.id} empty={t('models.empty')} loading={loading} />
    </Layout>
  );
}
