import { addToSpend, BUDGET_PERIODS, emptySpend, periodEnd, periodStart, type Budget, type BudgetPeriod, type PeriodSpend } from '../core/budget-period.ts';
import { GatewayError } from '../core/errors.ts';
import { nanoToUsd, usdString, type Nano } from '../core/money.ts';
import type { LedgerEntry } from '../store/repositories/ledger.ts';
import type { SharedBudget } from './shared-holds.ts';

export type BudgetSubject = 'account' | 'key';

/**
 * One key's or account's spend against its periodic budget, kept like the balance: `row` as the
 * database has it (per period kind: the period counted and its sum), `local` charged here and not
 * yet committed (per kind too, so a change of period is exact), `held` open reservations. The
 * current period is read off the clock each time: a new period starts at zero by itself.
 */
export interface BudgetSlot {
  budget: Budget | null;
  row: PeriodSpend;
  local: PeriodSpend;
  held: Nano;
}

/** What a refusal tells: the budget, when it is whole again. */
export interface BudgetState {
  budget: Budget;
  spentNano: Nano;
  resetsAt: number;
}

const ADJECTIVE: Record<BudgetPeriod, string> = { day: 'daily', week: 'weekly', month: 'monthly' };

/**
 * Periodic budgets of keys and accounts (contract §4). Only subjects that have (or had) a budget
 * are tracked: a budget set later starts from the row's committed spend.
 */
export class Budgets {
  private readonly slots = new Map<string, BudgetSlot>();
  private readonly clock: () => number;

  constructor(clock: () => number) {
    this.clock = clock;
  }

  /** From the state sync: the budget and the committed spend of a key or an account. */
  apply(subject: BudgetSubject, id: string, budget: Budget | null, row: PeriodSpend): void {
    const name = `${subject}:${id}`;
    const slot = this.slots.get(name);
    if (slot) {
      slot.budget = budget;
      slot.row = copySpend(row);
    } else if (budget) {
      this.slots.set(name, { budget, row: copySpend(row), local: emptySpend(), held: 0 });
    }
  }

  /** The budget and its spend in the current period (charges applied here included), or none. */
  state(subject: BudgetSubject, id: string): BudgetState | undefined {
    if (this.slots.size === 0) return undefined;
    const slot = this.slots.get(`${subject}:${id}`);
    if (!slot?.budget) return undefined;
    return this.stateOf(slot, slot.budget, this.clock());
  }

  /** What a reservation may still take against the subject's budget (Infinity: no budget). */
  left(subject: BudgetSubject, id: string): Nano {
    // most gateways set no budget: every request then skips the lookups (and their strings)
    if (this.slots.size === 0) return Infinity;
    const slot = this.slots.get(`${subject}:${id}`);
    if (!slot?.budget) return Infinity;
    return slot.budget.nano - this.stateOf(slot, slot.budget, this.clock()).spentNano - slot.held;
  }

  /**
   * The slot to hold `amount` against, or none (no budget); 402 with the budget's reset time when
   * it is spent, or when `amount` (an upper bound of the request's cost) would go beyond it.
   */
  check(subject: BudgetSubject, id: string, amount: Nano): BudgetSlot | undefined {
    if (this.slots.size === 0) return undefined;
    const slot = this.slots.get(`${subject}:${id}`);
    if (!slot?.budget) return undefined;
    const state = this.stateOf(slot, slot.budget, this.clock());
    const left = slot.budget.nano - state.spentNano - slot.held;
    if (left <= 0 || amount > left) throw budgetSpent(subject, state, left <= 0 ? null : { amount, left });
    return slot;
  }

  /**
   * The budgets of an account and a key as the cross-instance holds count them (SharedHolds): per
   * period under its own name, with what is left as this instance sees it (holds aside: Redis counts them).
   */
  shared(accountId: string, keyId: string | null): SharedBudget[] {
    if (this.slots.size === 0) return [];
    const now = this.clock();
    const found: SharedBudget[] = [];
    for (const [subject, id] of [['key', keyId], ['account', accountId]] as const) {
      const slot = id === null ? undefined : this.slots.get(`${subject}:${id}`);
      if (!slot?.budget || id === null) continue;
      const state = this.stateOf(slot, slot.budget, now);
      found.push({
        subject: budgetSubject(subject, id, slot.budget.period, periodStart(slot.budget.period, now)),
        leftNano: slot.budget.nano - state.spentNano,
        refuse: () => budgetSpent(subject, state, 'elsewhere'),
      });
    }
    return found;
  }

  /** A charge applied here (before it is committed). */
  charged(entry: LedgerEntry): void {
    const cost = -entry.amountNano;
    for (const slot of this.slotsOf(entry)) addToSpend(slot.local, entry.createdAt, cost);
  }

  /** A charge's batch reached the database: out of `local`, into `row` when it was written. */
  reconciled(entry: LedgerEntry, committed: boolean): void {
    const cost = -entry.amountNano;
    for (const slot of this.slotsOf(entry)) {
      for (const kind of BUDGET_PERIODS) {
        if (slot.local[kind].start === periodStart(kind, entry.createdAt)) slot.local[kind].nano -= cost;
      }
      if (committed) addToSpend(slot.row, entry.createdAt, cost);
    }
  }

  private slotsOf(entry: LedgerEntry): BudgetSlot[] {
    if (this.slots.size === 0) return [];
    const found: BudgetSlot[] = [];
    const account = this.slots.get(`account:${entry.accountId}`);
    if (account) found.push(account);
    const key = entry.keyId ? this.slots.get(`key:${entry.keyId}`) : undefined;
    if (key) found.push(key);
    return found;
  }

  private stateOf(slot: BudgetSlot, budget: Budget, now: number): BudgetState {
    const start = periodStart(budget.period, now);
    const row = slot.row[budget.period];
    const local = slot.local[budget.period];
    const spentNano = (row.start === start ? row.nano : 0) + (local.start === start ? local.nano : 0);
    return { budget, spentNano, resetsAt: periodEnd(budget.period, now) };
  }
}

const budgetSubject = (subject: BudgetSubject, id: string, period: BudgetPeriod, start: number) => `budget:${subject}:${id}:${period}:${start}`;

/**
 * Every name a charge may have been counted under across instances (its key's and account's
 * budgets, whatever their period): for a replay, which marks what a dead process left pending.
 */
export function budgetSubjectsOf(entry: Pick<LedgerEntry, 'accountId' | 'keyId' | 'createdAt'>): string[] {
  const subjects: string[] = [];
  for (const period of BUDGET_PERIODS) {
    const start = periodStart(period, entry.createdAt);
    subjects.push(budgetSubject('account', entry.accountId, period, start));
    if (entry.keyId) subjects.push(budgetSubject('key', entry.keyId, period, start));
  }
  return subjects;
}

function copySpend(spend: PeriodSpend): PeriodSpend {
  return { day: { ...spend.day }, week: { ...spend.week }, month: { ...spend.month } };
}

/** 402 `insufficient_quota` naming the budget and when it resets (also as `x-modelgate-budget-reset`). */
function budgetSpent(subject: BudgetSubject, state: BudgetState, short: { amount: Nano; left: Nano } | 'elsewhere' | null): GatewayError {
  const resets = new Date(state.resetsAt).toISOString();
  const whose = subject === 'key' ? "This API key's" : "This account's";
  // exact amounts: a budget is what its owner typed
  const budget = `${ADJECTIVE[state.budget.period]} budget of $${usdString(state.budget.nano)}`;
  const message = short === 'elsewhere'
    ? `${whose} ${budget} is used by requests in flight or just charged on other gateway instances. Retry shortly; it resets at ${resets}.`
    : short
    ? `${whose} ${budget} has $${usdString(short.left)} left, and this request may cost up to $${usdString(short.amount)}. Lower max_tokens, or wait until the budget resets at ${resets}.`
    : `${whose} ${budget} is spent. It resets at ${resets}.`;
  return new GatewayError({ status: 402, type: 'insufficient_quota', message, code: 'insufficient_quota', headers: { 'x-modelgate-budget-reset': resets } });
}

/** The balance's and spend cap's messages: two decimals, or two significant digits under a cent. */
export function formatUsd(nano: Nano): string {
  const usd = nanoToUsd(nano);
  return usd >= 0.01 ? usd.toFixed(2) : usd.toPrecision(2);
}
