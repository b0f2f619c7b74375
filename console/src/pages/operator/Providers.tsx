import { useState } from 'preact/hooks';
import { Confirm } from '../../components/Confirm.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { Layout } from '../../components/Layout.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { del, get, patch, post } from '../../lib/api.ts';
import { integer } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import type { PageProps } from '../types.ts';
import { healthBadge } from './Overview.tsx';
import { ProbeStrip, type ProbeResult } from './ProbeStrip.tsx';
import { ProviderForm, type ProviderView } from './ProviderForm.tsx';

interface TestResult {
  ok: boolean;
  model: string | null;
  status: number | null;
  latency_ms: number;
  message: string;
}

type Mode = { kind: 'create' } | { kind: 'edit'; provider: ProviderView } | { kind: 'delete'; provider: ProviderView };

export function Providers({ user, path }: PageProps) {
  const { data, error, loading, reload } = useData(() => get<{ families: string[]; data: Array<ProviderView & { probes?: ProbeResult[] }> }>('/admin/providers'));
  const [mode, setMode] = useState<Mode | null>(null);
  const [tests, setTests] = useState<Record<string, TestResult | 'running'>>({});
  const close = () => setMode(null);

  const test = async (p: ProviderView) => {
    setTests((s) => ({ ...s, [p.id]: 'running' }));
    try {
      const result = await post<TestResult>(`/admin/providers/${p.id}/test`);
      setTests((s) => ({ ...s, [p.id]: result }));
    } catch (err) {
      setTests((s) => ({ ...s, [p.id]: { ok: false, model: null, status: null, latency_ms: 0, message: err instanceof Error ? err.message : String(err) } }));
    }
  };

  const columns: Array<Column<ProviderView>> = [
    { label: t('providers.name'), rowHeader: true, render: (p) => p.name },
    { label: t('providers.type'), render: (p) => p.type },
    { label: t('providers.baseUrl'), render: (p) => <code class="small break">{p.base_url}</code> },
    { label: t('providers.apiKey'), render: (p) => <code class="small">{p.api_key_preview || '—'}</code> },
    { label: t('providers.models'), align: 'right', render: (p) => <span title={p.models.join(', ')}>{integer(p.models.length)}</span> },
    { label: t('providers.priorityWeight'), align: 'right', render: (p) => `${p.priority} / ${p.weight}` },
    {
      label: t('providers.healthLabel'),
      render: (p: ProviderView & { probes?: ProbeResult[] }) => (
        <div class="stack tight">
          {healthBadge(p.enabled, p.health)}
          <ProbeStrip probes={p.probes} />
        </div>
      ),
    },
    {
      label: t('common.actions'),
      render: (p) => {
        const result = tests[p.id];
        return (
          <div class="stack tight">
            <div class="row-actions">
              <button type="button" class="button small" onClick={() => test(p)} disabled={result === 'running'}>
                {result === 'running' ? t('common.working') : t('providers.test')}
              </button>
              <button type="button" class="button small" onClick={() => setMode({ kind: 'edit', provider: p })}>
                {t('common.edit')}
              </button>
              <button type="button" class="button small danger" onClick={() => setMode({ kind: 'delete', provider: p })}>
                {t('common.delete')}
              </button>
            </div>
            {result && result !== 'running' && (
              <Notice kind={result.ok ? 'success' : 'error'}>
                {result.ok ? t('providers.testOk', { model: result.model ?? '', ms: result.latency_ms }) : t('providers.testFailed', { message: result.message })}
              </Notice>
            )}
          </div>
        );
      },
    },
  ];

  return (
    <Layout
      user={user}
      path={path}
      title={t('providers.title')}
      actions={
        <button type="button" class="button primary" onClick={() => setMode({ kind: 'create' })}>
          {t('providers.add')}
        </button>
      }
    >
      <p class="lead">{t('providers.intro')}</p>
      <ErrorText error={error} />
      <Table caption={t('providers.title')} columns={columns} rows={data?.data ?? []} rowKey={(p) => p.id} empty={t('providers.empty')} loading={loading} />
      <Dialog open={mode?.kind === 'create'} title={t('providers.add')} onClose={close} wide>
        <ProviderForm
          families={data?.families ?? []}
          onSubmit={async (body) => {
            await post('/admin/providers', body);
            reload();
            close();
          }}
        />
      </Dialog>
      <Dialog open={mode?.kind === 'edit'} title={t('providers.edit')} onClose={close} wide>
        {mode?.kind === 'edit' && (
          <ProviderForm
            initial={mode.provider}
            families={data?.families ?? []}
            onSubmit={async (body) => {
              await patch(`/admin/providers/${mode.provider.id}`, body);
              reload();
              close();
            }}
          />
        )}
      </Dialog>
      <Confirm
        open={mode?.kind === 'delete'}
        title={t('providers.deleteTitle')}
        text={t('providers.deleteText', { name: mode?.kind === 'delete' ? mode.provider.name : '' })}
        confirm={t('common.delete')}
        danger
        onClose={close}
        onConfirm={async () => {
          if (mode?.kind !== 'delete') return;
          await del(`/admin/providers/${mode.provider.id}`);
          reload();
          close();
        }}
      />
    </Layout>
  );
}
