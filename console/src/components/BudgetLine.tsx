import { t } from '../i18n/index.ts';
import { dateTime, money } from '../lib/format.ts';

/** A periodic budget as the views show it (contract §4), with its spend this period. */
export interface BudgetView {
  budget_usd: string | null;
  budget_period: 'day' | 'week' | 'month' | null;
  budget_spent_usd: string | null;
  budget_resets_at: string | null;
}

const PERIOD = { day: 'budget.day', week: 'budget.week', month: 'budget.month' } as const;

/** "spent $x of $y this week, resets …", or nothing without a budget. */
export function BudgetLine({ of, testId }: { of: BudgetView; testId?: string }) {
  if (of.budget_usd === null || of.budget_period === null) return null;
  const text = t('budget.line', { spent: money(of.budget_spent_usd ?? '0'), budget: money(of.budget_usd), period: t(PERIOD[of.budget_period]), resets: dateTime(of.budget_resets_at) });
  return (
    <div class="muted small" data-testid={testId}>
      {text}
    </div>
  );
}
