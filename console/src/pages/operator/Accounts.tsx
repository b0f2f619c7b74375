import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { Layout } from '../../components/Layout.tsx';
import { Link } from '../../components/Link.tsx';
import { ErrorText } from '../../components/Notice.tsx';
import { Badge, Pager, Table, type Column } from '../../components/Table.tsx';
import { t } from '../../i18n/index.ts';
import { get } from '../../lib/api.ts';
import { Money } from '../../components/Money.tsx';
import type { BudgetView } from '../../components/BudgetLine.tsx';
import { date } from '../../lib/format.ts';
import { setSearch, useRoute } from '../../lib/router.ts';
import { usePager, type Page } from '../../lib/use-pager.ts';
import type { PageProps } from '../types.ts';

export interface AccountView extends BudgetView {
  id: string;
  name: string;
  email: string | null;
  balance_usd: string;
  reserved_usd: string;
  disabled: boolean;
  created_at: string;
}

export function Accounts({ user, path }: PageProps) {
  const { search } = useRoute();
  const query = search.get('q') ?? '';
  const [text, setText] = useState(query);
  const pager = usePager((before: string | undefined) => get<Page<AccountView, string>>('/admin/accounts', { limit: 25, before, search: query || undefined }), [query]);

  const columns: Array<Column<AccountView>> = [
    { label: t('accounts.name'), rowHeader: true, render: (a) => <Link href={`/admin/accounts/${a.id}`}>{a.name}</Link> },
    { label: t('auth.email'), render: (a) => a.email ?? <span class="muted">—</span> },
    { label: t('accounts.balance'), align: 'right', render: (a) => <Money usd={a.balance_usd} /> },
    { label: t('accounts.status'), render: (a) => (a.disabled ? <Badge kind="bad">{t('accounts.disabled')}</Badge> : <Badge kind="ok">{t('accounts.active')}</Badge>) },
    { label: t('accounts.created'), render: (a) => date(a.created_at) },
    { label: 'ID', render: (a) => <code class="small">{a.id}</code> },
  ];

  return (
    <Layout user={user} path={path} title={t('accounts.title')}>
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch({ q: text.trim() || undefined });
        }}
      >
        <Field label={t('accounts.search')} type="search" name="q" value={text} onValue={setText} placeholder={t('accounts.searchHint')} />
        <button type="submit" class="button">
          {t('accounts.searchButton')}
        </button>
      </form>
      <ErrorText error={pager.error} />
      <Table caption={t('accounts.title')} columns={columns} rows={pager.rows} rowKey={(a) => a.id} empty={t('accounts.empty')} loading={pager.loading} />
      <Pager pager={pager} />
    </Layout>
  );
}
