import { authenticationError, insufficientQuota } from '../core/errors.ts';
import type { Nano } from '../core/money.ts';
import type { AccountRecord } from '../store/repositories/accounts.ts';
import type { ApiKeyRecord } from '../store/repositories/api-keys.ts';
import { Budgets, formatUsd, type BudgetSlot, type BudgetState } from './budgets.ts';
import type { SharedBudget } from './shared-holds.ts';
import type { LedgerEntry } from '../store/repositories/ledger.ts';
import type { LedgerKind, NewUsageRow } from '../store/schema.ts';

interface Balance {
  disabled: boolean;
  /** the journal's sum as committed to the database */
  committed: Nano;
  /** entries applied here but not yet committed (signed) */
  local: Nano;
  /** open reservations */
  held: Nano;
}

interface KeySpend {
  committed: Nano;
  local: Nano;
  held: Nano;
}

/** A reservation: settled or released exactly once. */
export interface Hold {
  readonly accountId: string;
  readonly keyId: string | null;
  readonly amount: Nano;
  /** part of the key's spend cap this hold occupies (0 when the key has no cap) */
  readonly keyHeld: Nano;
  /** the periodic budgets (key, account) `amount` is held against */
  readonly budgets: readonly BudgetSlot[];
  open: boolean;
}

export interface EntrySink {
  /** `usage`: the call's usage row, for the settlement log (see SettlementLog) */
  enqueue(entry: LedgerEntry, usage?: NewUsageRow | null): void;
}

/**
 * Balances and reservations, in memory. Reserve takes an upper bound of a request's cost and
 * refuses when the balance minus open reservations cannot cover it; settle journals the real
 * cost and frees the hold; release frees it without a charge. Journal entries are written
 * behind (batched); `reconcile` moves them from "local" to "committed" once the database has them.
 */
export class Ledger {
  private readonly balances = new Map<string, Balance>();
  private readonly keySpend = new Map<string, KeySpend>();
  private openHolds = 0;
  private readonly sink: EntrySink;
  /** the time of charges and of budget periods; tests set it to move between periods */
  clock: () => number = Date.now;
  private readonly budgets = new Budgets(() => this.clock());

  constructor(sink: EntrySink) {
    this.sink = sink;
  }

  /** From the state sync: the account as the database has it now. */
  applyAccount(record: AccountRecord): void {
    const balance = this.balances.get(record.id);
    if (balance) {
      balance.committed = record.balanceNano;
      balance.disabled = record.disabled;
    } else {
      this.balances.set(record.id, { committed: record.balanceNano, local: 0, held: 0, disabled: record.disabled });
    }
    this.budgets.apply('account', record.id, budgetOf(record), record.periodSpend);
  }

  /** From the state sync: a key's periodic budget and its committed spend per period. */
  applyKeyBudget(record: Pick<ApiKeyRecord, 'id' | 'budgetNano' | 'budgetPeriod' | 'periodSpend'>): void {
    this.budgets.apply('key', record.id, budgetOf(record), record.periodSpend);
  }

  /** The account's and the key's budgets, for the cross-instance holds (SharedHolds.acquire). */
  sharedBudgets(accountId: string, keyId: string | null): SharedBudget[] {
    return this.budgets.shared(accountId, keyId);
  }

  /** A key's or an account's budget and its spend this period (charges not yet committed included), or none. */
  budget(subject: 'account' | 'key', id: string): BudgetState | undefined {
    return this.budgets.state(subject, id);
  }

  /** From the state sync: a key's committed spend. */
  applyKeySpend(keyId: string, spentNano: Nano): void {
    const spend = this.keySpend.get(keyId);
    if (spend) spend.committed = spentNano;
    else this.keySpend.set(keyId, { committed: spentNano, local: 0, held: 0 });
  }

  /** Balance as the customer sees it: every charge applied, reservations not subtracted. */
  balance(accountId: string): Nano | undefined {
    const b = this.balances.get(accountId);
    return b && b.committed + b.local;
  }

  /** Unknown accounts count as disabled: a key must belong to a live account. */
  isAccountDisabled(accountId: string): boolean {
    return this.balances.get(accountId)?.disabled ?? true;
  }

  reserved(accountId: string): Nano {
    return this.balances.get(accountId)?.held ?? 0;
  }

  keySpent(keyId: string): Nano {
    const s = this.keySpend.get(keyId);
    return s ? s.committed + s.local : 0;
  }

  get openReservations(): number {
    return this.openHolds;
  }

  /** What a reservation may take right now: the balance minus open holds, within the key's cap. */
  headroom(accountId: string, key: { id: string; maxSpendNano: Nano | null } | null): Nano {
    const b = this.balances.get(accountId);
    if (!b) return 0;
    const available = Math.min(b.committed + b.local - b.held, this.budgets.left('account', accountId));
    if (!key) return available;
    const budgeted = Math.min(available, this.budgets.left('key', key.id));
    if (key.maxSpendNano === null) return budgeted;
    const spend = this.spendOf(key.id);
    return Math.min(budgeted, key.maxSpendNano - spend.committed - spend.local - spend.held);
  }

  /**
   * Admission's cheap check, before any work is done on a request: refuses (402, with the words
   * `reserve` would use) when nothing at all could be reserved — the balance minus open holds is
   * used up, or the key's spend cap is reached.
   */
  requireHeadroom(accountId: string, key: { id: string; maxSpendNano: Nano | null }): void {
    const b = this.balances.get(accountId);
    if (!b || b.committed + b.local - b.held <= 0) throw insufficientQuota('Your balance is used up. Top up your account to continue.');
    if (key.maxSpendNano !== null) {
      const spend = this.keySpend.get(key.id);
      if ((spend ? spend.committed + spend.local + spend.held : 0) >= key.maxSpendNano) {
        throw insufficientQuota(`This API key reached its spend cap of $${formatUsd(key.maxSpendNano)}. Raise the cap or use another key.`);
      }
    }
    // a spent budget (nothing left of it) answers here, before any work
    this.budgets.check('key', key.id, 0);
    this.budgets.check('account', accountId, 0);
  }

  reserve(accountId: string, key: { id: string; maxSpendNano: Nano | null } | null, amount: Nano): Hold {
    const b = this.balances.get(accountId);
    if (!b || b.disabled) throw authenticationError('The account of this API key is disabled.', 'account_disabled');
    const available = b.committed + b.local - b.held;
    if (available <= 0) {
      throw insufficientQuota('Your balance is used up. Top up your account to continue.');
    }
    if (amount > available) {
      throw insufficientQuota(
        `Insufficient balance: this request may cost up to $${formatUsd(amount)} but $${formatUsd(available)} is available. Top up, or lower max_tokens.`,
      );
    }
    // the budgets refuse before anything is held; held against them with the balance
    const budgets = [key && this.budgets.check('key', key.id, amount), this.budgets.check('account', accountId, amount)].filter((slot) => slot !== undefined && slot !== null);
    let keyHeld = 0;
    if (key && key.maxSpendNano !== null) {
      const spend = this.spendOf(key.id);
      if (spend.committed + spend.local + spend.held + amount > key.maxSpendNano) {
        throw insufficientQuota(`This API key reached its spend cap of $${formatUsd(key.maxSpendNano)}. Raise the cap or use another key.`);
      }
      spend.held += amount;
      keyHeld = amount;
    }
    b.held += amount;
    for (const slot of budgets) slot.held += amount;
    this.openHolds++;
    return { accountId, keyId: key?.id ?? null, amount, keyHeld, budgets, open: true };
  }

  /**
   * Re-establishes the reservation a durable job holds (after a restart, or when another
   * instance takes the job over). No balance check: the money was set aside when the job was
   * accepted, and refusing now would leave the job running unpaid.
   */
  restore(accountId: string, keyId: string | null, amount: Nano): Hold {
    const b = this.balances.get(accountId);
    if (b) b.held += amount;
    this.openHolds++;
    return { accountId, keyId, amount, keyHeld: 0, budgets: [], open: true };
  }

  /**
   * A hold of nothing that is never refused, for work an upstream started that the gateway could
   * not prevent (a realtime response the vendor began on its own when the balance could no longer
   * cover it): settled like any hold, its whole cost is the overrun.
   */
  holdIncurred(accountId: string, keyId: string | null): Hold {
    this.openHolds++;
    return { accountId, keyId, amount: 0, keyHeld: 0, budgets: [], open: true };
  }

  /** Charges `cost` (which may exceed the hold: the overrun of one request) and closes the hold. */
  settle(hold: Hold, cost: Nano, entry: { entryKey: string; requestId: string; note?: string; usage?: NewUsageRow }): void {
    // exactly once: a hold already settled or released is never charged (again)
    if (!this.close(hold) || cost <= 0) return;
    this.apply(
      {
        entryKey: entry.entryKey,
        accountId: hold.accountId,
        keyId: hold.keyId,
        requestId: entry.requestId,
        kind: 'charge',
        amountNano: -cost,
        note: entry.note ?? null,
        createdAt: this.clock(),
      },
      entry.usage ?? null,
    );
  }

  /**
   * An entry a process that died had logged but maybe not committed (SettlementLog): applied
   * and queued again; the database writes it at most once (entry keys are unique), and
   * `reconcile` takes it back out of `local` when it was already there.
   */
  replay(entry: LedgerEntry, usage: NewUsageRow | null): void {
    this.apply(entry, usage);
  }

  release(hold: Hold): void {
    this.close(hold);
  }

  /** Credits (positive) or corrections (negative) by an operator. */
  adjust(accountId: string, amount: Nano, kind: Extract<LedgerKind, 'credit' | 'correction' | 'refund' | 'redemption'>, entryKey: string, note: string | null): void {
    this.apply({ entryKey, accountId, keyId: null, requestId: null, kind, amountNano: amount, note, createdAt: this.clock() });
  }

  /** After a batch reached the database: its entries are now part of `committed`. */
  reconcile(batch: LedgerEntry[], written: Set<string>): void {
    // a key queued twice in one batch was written once (its first occurrence): count it once
    const counted = new Set<string>();
    for (const entry of batch) {
      const committed = written.has(entry.entryKey) && !counted.has(entry.entryKey);
      if (committed) counted.add(entry.entryKey);
      const b = this.balances.get(entry.accountId);
      if (b) {
        b.local -= entry.amountNano;
        if (committed) b.committed += entry.amountNano;
      }
      if (entry.keyId && entry.kind === 'charge') {
        const s = this.spendOf(entry.keyId);
        s.local += entry.amountNano;
        if (committed) s.committed -= entry.amountNano;
      }
      if (entry.kind === 'charge') this.budgets.reconciled(entry, committed);
    }
  }

  private apply(entry: LedgerEntry, usage: NewUsageRow | null = null): void {
    // queued first: the sink fits the entry to its columns in place (a NaN or out-of-range amount
    // becomes a finite integer), and the balance must move by what the journal will hold
    this.sink.enqueue(entry, usage);
    const b = this.balances.get(entry.accountId);
    if (b) b.local += entry.amountNano;
    if (entry.keyId && entry.kind === 'charge') this.spendOf(entry.keyId).local -= entry.amountNano;
    if (entry.kind === 'charge') this.budgets.charged(entry);
  }

  /** false when the hold was already closed */
  private close(hold: Hold): boolean {
    if (!hold.open) return false;
    hold.open = false;
    this.openHolds--;
    const b = this.balances.get(hold.accountId);
    if (b) b.held -= hold.amount;
    if (hold.keyId && hold.keyHeld > 0) this.spendOf(hold.keyId).held -= hold.keyHeld;
    for (const slot of hold.budgets) slot.held -= hold.amount;
    return true;
  }

  private spendOf(keyId: string): KeySpend {
    let s = this.keySpend.get(keyId);
    if (!s) {
      s = { committed: 0, local: 0, held: 0 };
      this.keySpend.set(keyId, s);
    }
    return s;
  }
}

/** A record's budget columns as one budget, or none. */
function budgetOf(record: Pick<AccountRecord, 'budgetNano' | 'budgetPeriod'>) {
  return record.budgetNano === null || record.budgetPeriod === null ? null : { nano: record.budgetNano, period: record.budgetPeriod };
}
