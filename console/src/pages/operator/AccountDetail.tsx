import { useRef, useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { Layout } from '../../components/Layout.tsx';
import { Link } from '../../components/Link.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { Pager, Stat, Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { del, get, patch, post } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import { BudgetLine } from '../../components/BudgetLine.tsx';
import { cents, dateTime, money } from '../../lib/format.ts';
import { useData } from '../../lib/use-data.ts';
import { usePager, type Page } from '../../lib/use-pager.ts';
import { statusBadge } from '../customer/Keys.tsx';
import type { KeyView } from '../customer/KeyForm.tsx';
import { LedgerTable, type LedgerEntry } from '../shared/LedgerTable.tsx';
import type { PageProps } from '../types.ts';
import type { AccountView } from './Accounts.tsx';

interface Detail {
  account: AccountView;
  users: Array<{ id: string; email: string; name: string }>;
  keys: KeyView[];
}

/** One account: balance, credit or debit with a note, disable, its keys and its journal. */
export function AccountDetail({ user, path, params }: PageProps) {
  const id = params.id!;
  const detail = useData(() => get<Detail>(`/admin/accounts/${id}`), [id]);
  const ledger = usePager((before: number | undefined) => get<Page<LedgerEntry, number>>(`/admin/accounts/${id}/ledger`, { limit: 25, before }), [id]);
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  // one idempotency key per filled-in form: a double submit credits once
  const attempt = useRef(crypto.randomUUID());

  const refresh = () => {
    detail.reload();
    ledger.reload();
  };
  const credit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const answer = await post<AccountView>(`/admin/accounts/${id}/credit`, { amount_usd: Number(amount), note }, { 'idempotency-key': attempt.current });
      attempt.current = crypto.randomUUID();
      // the notice and the balance card change in the same render: both show the answer
      detail.update((current) => ({ ...current, account: answer }));
      setDone(t('accounts.credited', { amount: money(amount), balance: money(answer.balance_usd) }));
      setAmount('');
      setNote('');
      refresh();
    } catch (err) {
      setError(err);
    }
  };
  const act = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
      refresh();
    } catch (err) {
      setError(err);
    }
  };

  const a = detail.data?.account;
  const keyColumns: Array<Column<KeyView>> = [
    { label: t('keys.name'), rowHeader: true, render: (k) => k.name ?? <span class="muted">{t('keys.unnamed')}</span> },
    { label: t('keys.key'), render: (k) => <code class="key-hint">{k.key_hint}</code> },
    { label: t('keys.statusLabel'), render: (k) => statusBadge(k.status) },
    { label: t('keys.lastUsed'), render: (k) => (k.last_used_at ? dateTime(k.last_used_at) : '—') },
    {
      label: t('keys.spend'),
      align: 'right',
      render: (k) => (
        <>
          <Money usd={k.spent_usd} />
          <BudgetLine of={k} />
        </>
      ),
    },
    {
      label: t('common.actions'),
      render: (k) => (
        <div class="row-actions">
          {/* the operator's own switch: a key the customer disabled stays disabled */}
          <button type="button" class="button small" onClick={() => act(() => patch(`/admin/keys/${k.id}`, { disabled: !k.operator_limits.disabled }))}>
            {k.operator_limits.disabled ? t('keys.enable') : t('keys.disable')}
          </button>
          <button type="button" class="button small danger" onClick={() => act(() => del(`/admin/keys/${k.id}`))}>
            {t('keys.revoke')}
          </button>
        </div>
      ),
    },
  ];

  return (
    <Layout user={user} path={path} title={a ? a.name : t('accounts.title')} actions={<Link href="/admin/accounts">← {t('accounts.back')}</Link>}>
      <ErrorText error={detail.error ?? error} />
      {a && (
        <>
          <section class="stats">
            <Stat
              label={t('accounts.balance')}
              value={<Money usd={a.balance_usd} testId="account-balance" />}
              sub={
                <>
                  {t('accounts.reserved', { amount: cents(a.reserved_usd) })}
                  <BudgetLine of={a} testId="account-budget" />
                </>
              }
            />
            <Stat label={t('auth.email')} value={<span class="small-value">{a.email ?? '—'}</span>} sub={<code class="small">{a.id}</code>} />
            <Stat
              label={t('accounts.status')}
              value={a.disabled ? t('accounts.disabled') : t('accounts.active')}
              sub={
                <button type="button" class="button small" onClick={() => act(() => patch(`/admin/accounts/${id}`, { disabled: !a.disabled }))}>
                  {a.disabled ? t('accounts.enable') : t('accounts.disable')}
                </button>
              }
            />
          </section>
          <section class="card">
            <h2>{t('accounts.creditTitle')}</h2>
            <form class="inline-form" onSubmit={credit}>
              <Field label={t('accounts.amount')} type="number" step="any" name="amount_usd" required value={amount} onValue={setAmount} hint={t('accounts.amountHint')} />
              <Field label={t('accounts.note')} name="note" required maxLength={1000} value={note} onValue={setNote} />
              <button type="submit" class="button primary">
                {t('accounts.apply')}
              </button>
            </form>
            {done && <Notice kind="success">{done}</Notice>}
          </section>
          <section class="card flush">
            <h2 class="card-title">{t('accounts.keys')}</h2>
            <Table caption={t('accounts.keys')} columns={keyColumns} rows={detail.data?.keys ?? []} rowKey={(k) => k.id} empty={t('keys.empty')} />
          </section>
          <section class="card flush">
            <h2 class="card-title">{t('billing.ledger')}</h2>
            <LedgerTable rows={ledger.rows} loading={ledger.loading} />
            <Pager pager={ledger} />
          </section>
          {detail.data && detail.data.users.length > 0 && (
            <p class="hint">{t('accounts.users', { list: detail.data.users.map((u) => `${u.name} <${u.email}>`).join(', ') })}</p>
          )}
        </>
      )}
    </Layout>
  );
}
