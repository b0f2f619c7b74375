import { useState } from 'preact/hooks';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Confirm } from '../../components/Confirm.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { Layout } from '../../components/Layout.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { Badge, Pager, Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { del, get, patch, post } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import { BudgetLine } from '../../components/BudgetLine.tsx';
import { date, dateTime, money } from '../../lib/format.ts';
import { usePager, type Page } from '../../lib/use-pager.ts';
import type { PageProps } from '../types.ts';
import { KeyForm, operatorLimitsText, type KeyBody, type KeyView } from './KeyForm.tsx';

type Mode = { kind: 'create' } | { kind: 'edit'; key: KeyView } | { kind: 'roll'; key: KeyView } | { kind: 'revoke'; key: KeyView } | { kind: 'secret'; secret: string; key: KeyView };

export function statusBadge(status: KeyView['status']) {
  const kind = status === 'active' ? 'ok' : status === 'expired' ? 'warn' : 'muted';
  return <Badge kind={kind}>{t(`keys.status.${status}`)}</Badge>;
}

export function Keys({ user, path }: PageProps) {
  const pager = usePager((before: string | undefined) => get<Page<KeyView, string>>('/keys', { limit: 20, before }), []);
  const [mode, setMode] = useState<Mode | null>(null);
  const [error, setError] = useState<unknown>(null);
  const close = () => setMode(null);

  const create = async (body: KeyBody) => {
    const answer = await post<{ key: KeyView; secret: string }>('/keys', body);
    pager.reload();
    setMode({ kind: 'secret', secret: answer.secret, key: answer.key });
  };
  const edit = (key: KeyView) => async (body: KeyBody) => {
    await patch(`/keys/${key.id}`, body);
    pager.reload();
    close();
  };
  const act = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
      pager.reload();
    } catch (err) {
      setError(err);
    }
  };
  const roll = async (key: KeyView) => {
    const answer = await post<{ key: KeyView; secret: string }>(`/keys/${key.id}/roll`);
    pager.reload();
    setMode({ kind: 'secret', secret: answer.secret, key: answer.key });
  };

  const columns: Array<Column<KeyView>> = [
    { label: t('keys.name'), rowHeader: true, render: (k) => k.name || <span class="muted">{t('keys.unnamed')}</span> },
    { label: t('keys.key'), render: (k) => <code class="key-hint">{k.key_hint}</code> },
    {
      label: t('keys.statusLabel'),
      render: (k) => {
        const imposed = operatorLimitsText(k.operator_limits);
        return (
          <>
            {statusBadge(k.status)}
            {imposed && <div class="muted small">{t('keys.byOperator', { limits: imposed })}</div>}
          </>
        );
      },
    },
    { label: t('keys.lastUsed'), render: (k) => (k.last_used_at ? dateTime(k.last_used_at) : <span class="muted">{t('keys.never')}</span>) },
    {
      label: t('keys.spend'),
      align: 'right',
      render: (k) => (
        <>
          <Money usd={k.spent_usd} />
          {k.max_spend_usd !== null && <div class="muted small">{t('keys.ofCap', { cap: money(k.max_spend_usd) })}</div>}
          <BudgetLine of={k} />
        </>
      ),
    },
    { label: t('keys.expires'), render: (k) => (k.expires_at ? date(k.expires_at) : <span class="muted">{t('keys.noExpiry')}</span>) },
    {
      label: t('common.actions'),
      render: (k) => (
        <div class="row-actions">
          <button type="button" class="button small" onClick={() => setMode({ kind: 'edit', key: k })} aria-label={t('keys.editNamed', { name: k.name ?? k.key_hint })}>
            {t('common.edit')}
          </button>
          {!k.operator_limits.disabled && (
            <button
              type="button"
              class="button small"
              onClick={() => act(() => patch(`/keys/${k.id}`, { disabled: !k.own_limits.disabled }))}
              aria-label={`${k.own_limits.disabled ? t('keys.enable') : t('keys.disable')} ${k.name ?? k.key_hint}`}
            >
              {k.own_limits.disabled ? t('keys.enable') : t('keys.disable')}
            </button>
          )}
          <button type="button" class="button small" onClick={() => setMode({ kind: 'roll', key: k })}>
            {t('keys.roll')}
          </button>
          <button type="button" class="button small danger" onClick={() => setMode({ kind: 'revoke', key: k })}>
            {t('keys.revoke')}
          </button>
        </div>
      ),
    },
  ];

  return (
    <Layout
      user={user}
      path={path}
      title={t('keys.title')}
      actions={
        <button type="button" class="button primary" onClick={() => setMode({ kind: 'create' })}>
          {t('keys.create')}
        </button>
      }
    >
      <p class="lead">{t('keys.intro')}</p>
      <ErrorText error={error ?? pager.error} />
      <Table caption={t('keys.title')} columns={columns} rows={pager.rows} rowKey={(k) => k.id} empty={t('keys.empty')} loading={pager.loading} />
      <Pager pager={pager} />

      <Dialog open={mode?.kind === 'create'} title={t('keys.create')} onClose={close}>
        <KeyForm submitLabel={t('keys.createSubmit')} onSubmit={create} />
      </Dialog>
      <Dialog open={mode?.kind === 'edit'} title={t('keys.edit')} onClose={close}>
        {mode?.kind === 'edit' && <KeyForm initial={mode.key} submitLabel={t('common.save')} onSubmit={edit(mode.key)} />}
      </Dialog>
      <Dialog open={mode?.kind === 'secret'} title={t('keys.secretTitle')} onClose={close}>
        {mode?.kind === 'secret' && (
          <div class="stack">
            <Notice kind="warning">{t('keys.secretOnce')}</Notice>
            <div class="secret">
              <code data-testid="new-secret">{mode.secret}</code>
              <CopyButton text={mode.secret} />
            </div>
            <div class="dialog-actions">
              <button type="button" class="button primary" onClick={close}>
                {t('keys.secretDone')}
              </button>
            </div>
          </div>
        )}
      </Dialog>
      <Confirm open={mode?.kind === 'roll'} title={t('keys.rollTitle')} text={t('keys.rollText')} confirm={t('keys.roll')} onClose={close} onConfirm={() => (mode?.kind === 'roll' ? roll(mode.key) : Promise.resolve())} />
      <Confirm
        open={mode?.kind === 'revoke'}
        title={t('keys.revokeTitle')}
        text={t('keys.revokeText')}
        confirm={t('keys.revoke')}
        danger
        onClose={close}
        onConfirm={async () => {
          if (mode?.kind !== 'revoke') return;
          await del(`/keys/${mode.key.id}`);
          pager.reload();
          close();
        }}
      />
    </Layout>
  );
}
