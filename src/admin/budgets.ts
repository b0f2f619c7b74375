import { periodEnd, spentIn, type BudgetPeriod, type PeriodSpend } from '../core/budget-period.ts';
import { invalidRequest } from '../core/errors.ts';
import { usdToNano, type MoneyFormat } from '../core/money.ts';
import type { AdminDeps } from './deps.ts';
import type { BudgetFields } from './schemas.ts';

interface BudgetColumns {
  budgetNano: number | null;
  budgetPeriod: BudgetPeriod | null;
}

/**
 * The budget a create or patch names, in the store's units: `budget_usd` null clears it (and its
 * period); a new budget needs its period, unless `current` has one; a period alone changes that of
 * the budget there is.
 */
export function budgetPatch(body: BudgetFields, current: BudgetColumns | undefined): Partial<BudgetColumns> {
  if (body.budget_usd === null) return { budgetNano: null, budgetPeriod: null };
  const period = body.budget_period ?? current?.budgetPeriod ?? null;
  if (body.budget_usd !== undefined) {
    if (period === null) throw invalidRequest('budget_period (day, week or month) is required with budget_usd', 'budget_period');
    return { budgetNano: usdToNano(body.budget_usd), budgetPeriod: period };
  }
  if (body.budget_period === undefined) return {};
  if (current?.budgetNano == null) throw invalidRequest('budget_period needs a budget_usd', 'budget_usd');
  return { budgetPeriod: body.budget_period };
}

/**
 * Spend against the budget that applies, this period (charges not yet committed included): the
 * ledger's view, else the row's. Nulls when there is no budget.
 */
export function budgetSpentView<T>(
  deps: Pick<AdminDeps, 'ledger'>,
  subject: 'account' | 'key',
  record: BudgetColumns & { id: string; periodSpend: PeriodSpend },
  money: MoneyFormat<T>,
): { budget_spent_usd: T | null; budget_resets_at: string | null } {
  if (record.budgetNano === null || record.budgetPeriod === null) return { budget_spent_usd: null, budget_resets_at: null };
  const now = deps.ledger.clock();
  const state = deps.ledger.budget(subject, record.id);
  const spent = state && state.budget.period === record.budgetPeriod ? state.spentNano : spentIn(record.periodSpend, record.budgetPeriod, now);
  return { budget_spent_usd: money(spent), budget_resets_at: new Date(periodEnd(record.budgetPeriod, now)).toISOString() };
}
