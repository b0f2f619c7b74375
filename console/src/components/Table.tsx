import type { ComponentChildren } from 'preact';
import { t } from '../i18n/index.ts';

export interface Column<T> {
  label: string;
  render: (row: T) => ComponentChildren;
  align?: 'right';
  /** the row's header cell, for screen readers */
  rowHeader?: boolean;
}

interface Props<T> {
  caption: string;
  columns: Array<Column<T>>;
  rows: T[];
  rowKey: (row: T) => string | number;
  empty: ComponentChildren;
  loading?: boolean;
}

export function Table<T>({ caption, columns, rows, rowKey, empty, loading }: Props<T>) {
  return (
    // focusable, so a table wider than the screen can be scrolled from the keyboard
    <div class="table-wrap" tabIndex={0} role="region" aria-label={caption} aria-busy={loading ? 'true' : undefined}>
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.align === 'right' ? 'num' : undefined} key={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td colSpan={columns.length} class="empty">
                {loading ? t('common.loading') : empty}
              </td>
            </tr>
          )}
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) =>
                c.rowHeader ? (
                  <th scope="row" key={c.label}>
                    {c.render(row)}
                  </th>
                ) : (
                  <td class={c.align === 'right' ? 'num' : undefined} key={c.label}>
                    {c.render(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Pager({ pager }: { pager: { hasNewer: boolean; hasOlder: boolean; newer: () => void; older: () => void; pageNumber: number } }) {
  if (!pager.hasNewer && !pager.hasOlder) return null;
  return (
    <nav class="pager" aria-label={t('common.pagination')}>
      <button type="button" class="button small" disabled={!pager.hasNewer} onClick={pager.newer}>
        ← {t('common.newer')}
      </button>
      <span>{t('common.page', { n: pager.pageNumber })}</span>
      <button type="button" class="button small" disabled={!pager.hasOlder} onClick={pager.older}>
        {t('common.older')} →
      </button>
    </nav>
  );
}

/** `long`: exact amounts can run to 15 characters; they get a smaller size rather than a line break. */
export function Stat({ label, value, sub, long }: { label: string; value: ComponentChildren; sub?: ComponentChildren; long?: boolean }) {
  const isLong = long ?? (typeof value === 'string' && value.length > 11);
  return (
    <div class="stat">
      <div class="stat-label">{label}</div>
      <div class={isLong ? 'stat-value long' : 'stat-value'}>{value}</div>
      {sub && <div class="stat-sub">{sub}</div>}
    </div>
  );
}

export function Badge({ kind, children }: { kind: 'ok' | 'warn' | 'bad' | 'muted'; children: ComponentChildren }) {
  return <span class={`badge ${kind}`}>{children}</span>;
}
