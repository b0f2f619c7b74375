import { useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog.tsx';
import { Field } from '../../components/Field.tsx';
import { Layout } from '../../components/Layout.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { Badge, Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { get, put } from '../../lib/api.ts';
import { money } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import { kindLabel, otherPrices, type Pricing } from '../customer/Models.tsx';
import type { PageProps } from '../types.ts';
import { PriceForm } from './PriceForm.tsx';

interface CatalogueModel {
  id: string;
  kind: string | null;
  pricing: Pricing;
  pricing_source: 'default' | 'override' | 'none';
  served_by: string[];
}

const price = (v: string | undefined) => (v === undefined ? <span class="muted">—</span> : money(v));

/** The catalogue with every price; a change applies to the next request on every instance. */
export function Prices({ user, path }: PageProps) {
  const { data, error, loading, reload } = useData(() => get<{ data: CatalogueModel[] }>('/admin/models'));
  const [editing, setEditing] = useState<CatalogueModel | 'new' | null>(null);
  const [filter, setFilter] = useState('');
  const [servedOnly, setServedOnly] = useState(true);
  const rows = (data?.data ?? []).filter((m) => (!servedOnly || m.served_by.length > 0) && m.id.toLowerCase().includes(filter.trim().toLowerCase()));

  const save = async (id: string, pricing: Record<string, unknown>) => {
    await put(`/admin/models/${id}`, { pricing });
    reload();
    setEditing(null);
  };

  const columns: Array<Column<CatalogueModel>> = [
    { label: t('models.model'), rowHeader: true, render: (m) => <code>{m.id}</code> },
    { label: t('models.kind'), render: (m) => kindLabel(m.kind) },
    { label: t('prices.servedBy'), align: 'right', render: (m) => m.served_by.length },
    { label: t('models.input'), align: 'right', render: (m) => price(m.pricing.input_per_mtok) },
    { label: t('models.cachedInput'), align: 'right', render: (m) => price(m.pricing.cached_input_per_mtok) },
    { label: t('models.output'), align: 'right', render: (m) => price(m.pricing.output_per_mtok) },
    { label: t('models.other'), render: (m) => otherPrices(m.pricing).map((p) => <div key={p}>{p}</div>) },
    { label: t('prices.source'), render: (m) => <Badge kind={m.pricing_source === 'override' ? 'ok' : m.pricing_source === 'none' ? 'warn' : 'muted'}>{t(`prices.source.${m.pricing_source}`)}</Badge> },
    {
      label: t('common.actions'),
      render: (m) => (
        <button type="button" class="button small" onClick={() => setEditing(m)} aria-label={t('prices.editButton', { model: m.id })}>
          {t('common.edit')}
        </button>
      ),
    },
  ];

  return (
    <Layout
      user={user}
      path={path}
      title={t('prices.title')}
      actions={
        <button type="button" class="button primary" onClick={() => setEditing('new')}>
          {t('prices.add')}
        </button>
      }
    >
      <p class="lead">{t('prices.intro')}</p>
      <div class="toolbar">
        <Field label={t('prices.search')} type="search" value={filter} onValue={setFilter} />
        <label class="check">
          <input type="checkbox" checked={servedOnly} onChange={(e) => setServedOnly((e.currentTarget as HTMLInputElement).checked)} />
          {t('prices.servedOnly')}
        </label>
      </div>
      <ErrorText error={error} />
      <Table caption={t('prices.title')} columns={columns} rows={rows} rowKey={(m) => m.id} empty={t('models.empty')} loading={loading} />
      <Dialog open={editing !== null} title={editing === 'new' ? t('prices.add') : t('prices.editNamed', { model: editing?.id ?? '' })} onClose={() => setEditing(null)} wide>
        {editing !== null && <PriceForm model={editing === 'new' ? undefined : editing.id} askId={editing === 'new'} pricing={editing === 'new' ? null : editing.pricing} onSubmit={save} />}
      </Dialog>
    </Layout>
  );
}
