import { authenticationError, insufficientQuota } from '../core/errors.ts';
import { nanoToUsd, type Nano } from '../core/money.ts';
import type { AccountRecord } from '../store/repositories/accounts.ts';
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
    const available = b.committed + b.local - b.held;
    if (!key || key.maxSpendNano === null) return available;
    const spend = this.spendOf(key.id);
    return Math.min(available, key.maxSpendNano - spend.committed - spend.local - spend.held);
  }

  /**
   * Admission's cheap check, before any work is done on a request: refuses (402, with the words
   * `reserve` would use) when nothing at all could be reserved — the balance minus open holds is
   * used up, or the key's spend cap is reached.
   */
  requireHeadroom(accountId: string, key: { id: string; maxSpendNano: Nano | null }): void {
    const b = this.balances.get(accountId);
    if (!b || b.committed + b.local - b.held <= 0) throw insufficientQuota('Your balance is used up. Top up your account to continue.');
    if (key.maxSpendNano === null) return;
    const spend = this.keySpend.get(key.id);
    if ((spend ? spend.committed + spend.local + spend.held : 0) >= key.maxSpendNano) {
      throw insufficientQuota(`This API key reached its spend cap of $${formatUsd(key.maxSpendNano)}. Raise the cap or use another key.`);
    }
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
    this.openHolds++;
    return { accountId, keyId: key?.id ?? null, amount, keyHeld, open: true };
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
    return { accountId, keyId, amount, keyHeld: 0, open: true };
  }

  /**
   * A hold of nothing that is never refused, for work an upstream started that the gateway could
   * not prevent (a realtime response the vendor began on its own when the balance could no longer
   * cover it): settled like any hold, its whole cost is the overrun.
   */
  holdIncurred(accountId: string, keyId: string | null): Hold {
    this.openHolds++;
    return { accountId, keyId, amount: 0, keyHeld: 0, open: true };
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
        createdAt: Date.now(),
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
    this.apply({ entryKey, accountId, keyId: null, requestId: null, kind, amountNano: amount, note, createdAt: Date.now() });
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
    }
  }

  private apply(entry: LedgerEntry, usage: NewUsageRow | null = null): void {
    // queued first: the sink fits the entry to its columns in place (a NaN or out-of-range amount
    // becomes a finite integer), and the balance must move by what the journal will hold
    this.sink.enqueue(entry, usage);
    const b = this.balances.get(entry.accountId);
    if (b) b.local += entry.amountNano;
    if (entry.keyId && entry.kind === 'charge') this.spendOf(entry.keyId).local -= entry.amountNano;
  }

  /** false when the hold was already closed */
  private close(hold: Hold): boolean {
    if (!hold.open) return false;
    hold.open = false;
    this.openHolds--;
    const b = this.balances.get(hold.accountId);
    if (b) b.held -= hold.amount;
    if (hold.keyId && hold.keyHeld > 0) this.spendOf(hold.keyId).held -= hold.keyHeld;
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

function formatUsd(nano: Nano): string {
  const usd = nanoToUsd(nano);
  return usd >= 0.01 ? usd.toFixed(2) : usd.toPrecision(2);
}
