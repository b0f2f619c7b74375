import { useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog.tsx';
import { Field, Select } from '../../components/Field.tsx';
import { Layout } from '../../components/Layout.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { Badge, Pager, Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { del, get, post, withQuery } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import { date, dateTime, money, parseDateInput } from '../../lib/format.ts';
import { setSearch, useRoute } from '../../lib/router.ts';
import { usePager, type Page } from '../../lib/use-pager.ts';
import type { PageProps } from '../types.ts';

interface CodeView {
  id: string;
  code: string;
  batch: string;
  amount_usd: string;
  note: string | null;
  status: 'unused' | 'redeemed' | 'revoked' | 'expired';
  expires_at: string | null;
  redeemed_by: string | null;
  redeemed_at: string | null;
  created_at: string;
}

const STATUS_BADGE = { unused: 'ok', redeemed: 'muted', revoked: 'bad', expired: 'warn' } as const;

function CreateBatch({ onCreated }: { onCreated: (batch: { batch: string; codes: CodeView[] }) => void }) {
  const [amount, setAmount] = useState('');
  const [count, setCount] = useState('10');
  const [expires, setExpires] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const day = parseDateInput(expires);
      const answer = await post<{ batch: string; codes: CodeView[] }>('/admin/codes', {
        amount_usd: Number(amount),
        count: Number(count),
        expires_at: day === undefined ? null : new Date(day + 86_400_000 - 1000).toISOString(),
        ...(note.trim() && { note }),
      });
      onCreated(answer);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="stack" onSubmit={submit}>
      <ErrorText error={error} />
      <div class="row">
        <Field label={t('codes.amount')} type="number" min={0.000001} step="any" required name="amount_usd" value={amount} onValue={setAmount} />
        <Field label={t('codes.count')} type="number" min={1} max={1000} step={1} required name="count" value={count} onValue={setCount} />
      </div>
      <div class="row">
        <Field label={t('codes.expires')} type="date" name="expires" value={expires} onValue={setExpires} hint={t('codes.expiresHint')} />
        <Field label={t('codes.note')} name="note" value={note} onValue={setNote} maxLength={200} />
      </div>
      <div class="dialog-actions">
        <button type="submit" class="button primary">
          {t('codes.createSubmit')}
        </button>
      </div>
    </form>
  );
}

export function Codes({ user, path }: PageProps) {
  const { search } = useRoute();
  const status = search.get('status') ?? '';
  const batch = search.get('batch') ?? '';
  const pager = usePager((before: string | undefined) => get<Page<CodeView, string>>('/admin/codes', { limit: 50, before, status: status || undefined, batch: batch || undefined }), [status, batch]);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ batch: string; codes: CodeView[] } | null>(null);
  const [error, setError] = useState<unknown>(null);

  const columns: Array<Column<CodeView>> = [
    { label: t('codes.code'), rowHeader: true, render: (c) => <code>{c.code}</code> },
    { label: t('codes.amount'), align: 'right', render: (c) => <Money usd={c.amount_usd} /> },
    { label: t('codes.status'), render: (c) => <Badge kind={STATUS_BADGE[c.status]}>{t(`codes.status.${c.status}`)}</Badge> },
    {
      label: t('codes.redeemedBy'),
      render: (c) => (c.redeemed_by ? <>
        <code class="small">{c.redeemed_by}</code>
        <div class="muted small">{dateTime(c.redeemed_at)}</div>
      </> : <span class="muted">—</span>),
    },
    { label: t('codes.expires'), render: (c) => (c.expires_at ? date(c.expires_at) : <span class="muted">{t('keys.noExpiry')}</span>) },
    { label: t('codes.batch'), render: (c) => <button type="button" class="link-button small" onClick={() => setSearch({ status: status || undefined, batch: c.batch })}>{c.note ?? c.batch}</button> },
    {
      label: t('common.actions'),
      render: (c) =>
        c.status === 'unused' ? (
          <button
            type="button"
            class="button small danger"
            onClick={async () => {
              setError(null);
              try {
                await del(`/admin/codes/${c.id}`);
                pager.reload();
              } catch (err) {
                setError(err);
              }
            }}
          >
            {t('codes.revoke')}
          </button>
        ) : null,
    },
  ];

  return (
    <Layout
      user={user}
      path={path}
      title={t('codes.title')}
      actions={
        <>
          <a class="button" href={`/console/api${withQuery('/admin/codes/export.csv', { status: status || undefined, batch: batch || undefined })}`} download>
            {t('codes.export')}
          </a>
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            {t('codes.create')}
          </button>
        </>
      }
    >
      <div class="toolbar">
        <Select
          label={t('codes.status')}
          value={status}
          onValue={(s) => setSearch({ status: s || undefined, batch: batch || undefined })}
          options={[{ value: '', label: t('codes.all') }, ...(['unused', 'redeemed', 'revoked', 'expired'] as const).map((s) => ({ value: s, label: t(`codes.status.${s}`) }))]}
        />
        {batch && (
          <p>
            {t('codes.batchFilter', { batch })}{' '}
            <button type="button" class="link-button" onClick={() => setSearch({ status: status || undefined })}>
              {t('codes.clearBatch')}
            </button>
          </p>
        )}
      </div>
      <ErrorText error={error ?? pager.error} />
      <Table caption={t('codes.title')} columns={columns} rows={pager.rows} rowKey={(c) => c.id} empty={t('codes.empty')} loading={pager.loading} />
      <Pager pager={pager} />
      <Dialog open={creating} title={t('codes.create')} onClose={() => setCreating(false)}>
        <CreateBatch
          onCreated={(answer) => {
            setCreating(false);
            setCreated(answer);
            pager.reload();
          }}
        />
      </Dialog>
      <Dialog open={created !== null} title={t('codes.createdTitle')} onClose={() => setCreated(null)} wide>
        {created && (
          <div class="stack">
            <Notice kind="success">{t('codes.createdText', { n: created.codes.length, amount: money(created.codes[0]?.amount_usd ?? '0') })}</Notice>
            <pre class="code-list" tabIndex={0} data-testid="created-codes">
              {created.codes.map((c) => c.code).join('\n')}
            </pre>
            <div class="dialog-actions">
              <a class="button" href={`/console/api${withQuery('/admin/codes/export.csv', { batch: created.batch })}`} download>
                {t('codes.exportBatch')}
              </a>
              <button type="button" class="button primary" onClick={() => setCreated(null)}>
                {t('common.done')}
              </button>
            </div>
          </div>
        )}
      </Dialog>
    </Layout>
  );
}
