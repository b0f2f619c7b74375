import type { MoneyFormat } from '../core/money.ts';
import { accountNames, keyChoices, labelsOf } from '../store/repositories/usage-labels.ts';
import type { UsageFilter } from '../store/repositories/usage-filter.ts';
import { allUsageRows, usageRows } from '../store/repositories/usage-rows.ts';
import { rollupSeries, rollupTop, rollupTotals, type GroupBy, type SeriesOptions, type Totals } from '../store/repositories/usage-stats.ts';
import type { UsageRow } from '../store/schema.ts';
import type { AdminDeps } from './deps.ts';

/**
 * Usage reads of the back office: totals, charts and top lists from the hourly and daily
 * rollups, raw rows by page or all of them (exports), and the names the pages show beside ids.
 * A filter with an account is one customer's usage; without one, every account's (operators).
 */

export function usageTotals(deps: AdminDeps, filter: UsageFilter): Promise<Totals> {
  return rollupTotals(deps.store.db, filter);
}

export function usageSeries(deps: AdminDeps, filter: UsageFilter, options: SeriesOptions) {
  return rollupSeries(deps.store.db, filter, options);
}

export function usageTop(deps: AdminDeps, filter: UsageFilter, by: GroupBy, limit: number) {
  return rollupTop(deps.store.db, filter, by, limit);
}

/** One page of rows, newest first, by id cursor. */
export function usagePage(deps: AdminDeps, filter: UsageFilter, limit: number, before?: number): Promise<UsageRow[]> {
  return usageRows(deps.store.db, filter, limit, before);
}

/** Every matching row, newest first, read a page at a time. */
export function allUsage(deps: AdminDeps, filter: UsageFilter): AsyncGenerator<UsageRow> {
  return allUsageRows(deps.store.db, filter);
}

/** Display names of ids by group ('account', 'key', 'provider'; others have none). */
export function usageLabels(deps: AdminDeps, group: string, ids: string[]): Promise<Record<string, string>> {
  return labelsOf(deps.store.db, group, ids);
}

/** The account's keys to filter its usage by. */
export function usageKeyChoices(deps: AdminDeps, accountId: string) {
  return keyChoices(deps.store.db, accountId);
}

export function namesOfAccounts(deps: AdminDeps, ids: string[]): Promise<Map<string, string>> {
  return accountNames(deps.store.db, ids);
}

/** A usage row as a view shows it (money: USD numbers for the admin API, exact strings for the console). */
export function usageRowView<T>(row: UsageRow, money: MoneyFormat<T>) {
  return {
    id: row.id,
    request_id: row.request_id,
    created_at: new Date(row.created_at).toISOString(),
    account_id: row.account_id,
    key_id: row.key_id,
    model: row.model,
    endpoint: row.endpoint,
    provider_id: row.provider_id,
    status: row.status,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    cached_tokens: row.cached_tokens,
    units: row.units,
    cost_usd: money(row.cost_nano),
    latency_ms: row.latency_ms,
    estimated: row.estimated === 1,
    error_type: row.error_type,
  };
}
