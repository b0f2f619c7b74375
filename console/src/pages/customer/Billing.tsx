import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { Layout } from '../../components/Layout.tsx';
import { ErrorText, Notice } from '../../components/Notice.tsx';
import { Pager, Stat } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { get, post } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import { money } from '../../lib/format.ts';
import { usePager, type Page } from '../../lib/use-pager.ts';
import { LedgerTable, type LedgerEntry } from '../shared/LedgerTable.tsx';
import type { PageProps } from '../types.ts';

type LedgerPage = Page<LedgerEntry, number> & { balance_usd: string };

export function Billing({ user, path }: PageProps) {
  const pager = usePager((before: number | undefined) => get<LedgerPage>('/ledger', { limit: 50, before }), []);
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const redeem = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const answer = await post<{ amount_usd: string }>('/redeem', { code });
      setDone(t('billing.redeemed', { amount: money(answer.amount_usd) }));
      setCode('');
      pager.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Layout user={user} path={path} title={t('billing.title')}>
      <div class="split">
        <section class="stats single" aria-label={t('billing.balance')}>
          <Stat label={t('billing.balance')} value={pager.page ? <Money usd={pager.page.balance_usd} testId="billing-balance" /> : <span data-testid="billing-balance">…</span>} sub={t('billing.walletNote')} />
        </section>
        <section class="card">
          <h2>{t('billing.redeemTitle')}</h2>
          <form class="inline-form" onSubmit={redeem}>
            <Field label={t('billing.code')} name="code" value={code} onValue={setCode} required placeholder="MG-XXXX-XXXX-XXXX-XXXX" autoComplete="off" />
            <button type="submit" class="button primary" disabled={busy || code.trim() === ''}>
              {t('billing.redeem')}
            </button>
          </form>
          <ErrorText error={error} />
          {done && <Notice kind="success">{done}</Notice>}
        </section>
      </div>
      <section class="card flush">
        <h2 class="card-title">{t('billing.ledger')}</h2>
        <p class="hint pad">{t('billing.ledgerIntro')}</p>
        <ErrorText error={pager.error} />
        <LedgerTable rows={pager.rows} loading={pager.loading} />
        <Pager pager={pager} />
      </section>
    </Layout>
  );
}
