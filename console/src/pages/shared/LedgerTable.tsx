import { Badge, Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { dateTime, money } from '../../lib/format.ts';

export interface LedgerEntry {
  id: number;
  kind: 'credit' | 'charge' | 'refund' | 'correction' | 'redemption';
  amount_usd: string;
  balance_usd: string;
  note: string | null;
  request_id: string | null;
  key_id: string | null;
  created_at: string;
  /** for charges: the request behind it */
  model?: string;
  endpoint?: string;
  key_name?: string | null;
}

const KIND_BADGE = { credit: 'ok', redemption: 'ok', refund: 'ok', charge: 'muted', correction: 'warn' } as const;

/** The journal with the balance after each entry (newest first): the top row's balance is the balance. */
export function LedgerTable({ rows, loading }: { rows: LedgerEntry[]; loading: boolean }) {
  const columns: Array<Column<LedgerEntry>> = [
    { label: t('billing.date'), rowHeader: true, render: (e) => <time dateTime={e.created_at}>{dateTime(e.created_at)}</time> },
    { label: t('billing.kind'), render: (e) => <Badge kind={KIND_BADGE[e.kind]}>{t(`billing.kind.${e.kind}`)}</Badge> },
    {
      label: t('billing.description'),
      render: (e) =>
        e.note ? (
          e.note
        ) : e.model ? (
          <>
            <code>{e.model}</code> <span class="muted small">{e.endpoint}</span>
            {e.key_name && <div class="muted small">{t('billing.viaKey', { key: e.key_name })}</div>}
          </>
        ) : e.request_id ? (
          <code class="small">{e.request_id}</code>
        ) : (
          <span class="muted">—</span>
        ),
    },
    {
      label: t('billing.amount'),
      align: 'right',
      render: (e) => (
        <span class={e.amount_usd.startsWith('-') ? 'amount negative' : 'amount positive'} data-testid="ledger-amount">
          {e.amount_usd.startsWith('-') ? '' : '+'}
          {money(e.amount_usd)}
        </span>
      ),
    },
    { label: t('billing.balanceAfter'), align: 'right', render: (e) => <span data-testid="ledger-balance">{money(e.balance_usd)}</span> },
  ];
  return <Table caption={t('billing.ledger')} columns={columns} rows={rows} rowKey={(e) => e.id} empty={t('billing.empty')} loading={loading} />;
}
