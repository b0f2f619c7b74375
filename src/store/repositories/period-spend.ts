import { sql, type RawBuilder } from 'kysely';
import { addToSpend, BUDGET_PERIODS, emptySpend, type PeriodSpend } from '../../core/budget-period.ts';

/**
 * A batch's charges per key or account and period kind, for the spend-per-period columns
 * (007-budgets): per kind, the latest period the batch charges and its sum there.
 */
export class PeriodDeltas {
  private readonly byId = new Map<string, PeriodSpend>();

  add(id: string, at: number, nano: number): void {
    let spend = this.byId.get(id);
    if (!spend) {
      spend = emptySpend();
      this.byId.set(id, spend);
    }
    addToSpend(spend, at, nano);
  }

  get(id: string): PeriodSpend | undefined {
    return this.byId.get(id);
  }
}

type SpendColumn = `spent_${'day' | 'week' | 'month'}_${'start' | 'nano'}`;

/**
 * The SET of a row's spend-per-period columns for a batch's charges, as the row has them at
 * commit (every instance's flushes add up): the same period adds, a later one starts over, an
 * earlier one (the row already counts a later period) changes nothing.
 */
export function periodSpendSets(spend: PeriodSpend | undefined): Partial<Record<SpendColumn, RawBuilder<number>>> {
  if (!spend) return {};
  const sets: Partial<Record<SpendColumn, RawBuilder<number>>> = {};
  for (const kind of BUDGET_PERIODS) {
    const { start, nano } = spend[kind];
    if (start === 0) continue;
    const startColumn = sql.ref(`spent_${kind}_start`);
    const nanoColumn = sql.ref(`spent_${kind}_nano`);
    sets[`spent_${kind}_nano`] = sql<number>`case when ${startColumn} = ${start} then ${nanoColumn} + cast(${nano} as bigint) when ${startColumn} < ${start} then cast(${nano} as bigint) else ${nanoColumn} end`;
    sets[`spent_${kind}_start`] = sql<number>`case when ${startColumn} < ${start} then cast(${start} as bigint) else ${startColumn} end`;
  }
  return sets;
}
