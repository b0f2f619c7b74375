import { addToSpend, emptySpend, type PeriodSpend } from '../../core/budget-period.ts';

/**
 * A batch's charges per key or account and period kind, for the spend-per-period columns
 * (007-budgets): per kind, the latest period the batch charges and its sum there. The flush
 * writes them with the statements of periodSpendSets (src/store/flush-statements.ts).
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
