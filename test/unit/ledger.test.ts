import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { Ledger } from '../../src/billing/ledger.ts';
import { GatewayError } from '../../src/core/errors.ts';
import type { AccountRecord } from '../../src/store/repositories/accounts.ts';
import type { LedgerEntry } from '../../src/store/repositories/ledger.ts';

function account(id: string, balanceNano: number, disabled = false): AccountRecord {
  const none = { start: 0, nano: 0 };
  return { id, name: id, email: null, balanceNano, disabled, budgetNano: null, budgetPeriod: null, periodSpend: { day: none, week: none, month: none }, seq: 1, createdAt: 0 };
}

function assertGatewayError(fn: () => unknown, status: number, type: string): GatewayError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof GatewayError, `expected a GatewayError, got ${String(caught)}`);
  assert.equal(caught.status, status);
  assert.equal(caught.type, type);
  return caught;
}

let queued: LedgerEntry[];
let ledger: Ledger;

beforeEach(() => {
  queued = [];
  ledger = new Ledger({ enqueue: (entry) => queued.push(entry) });
});

/** What the write-behind loop does: take the queue, "write" it (first occurrence of each key wins, or skip keys already stored), reconcile. */
function flush(stored: Set<string>): void {
  const batch = queued;
  queued = [];
  const written = new Set<string>();
  for (const entry of batch) {
    if (stored.has(entry.entryKey)) continue;
    stored.add(entry.entryKey);
    written.add(entry.entryKey);
  }
  ledger.reconcile(batch, written);
}

describe('reserve', () => {
  test('succeeds while balance minus holds covers the amount, then refuses with 402 insufficient_quota', () => {
    ledger.applyAccount(account('a', 1000));
    const first = ledger.reserve('a', null, 600);
    assert.equal(first.open, true);
    assert.equal(ledger.reserved('a'), 600);
    assert.equal(ledger.balance('a'), 1000, 'a hold does not change the visible balance');
    const error = assertGatewayError(() => ledger.reserve('a', null, 401), 402, 'insufficient_quota');
    assert.equal(error.code, 'insufficient_quota');
    assert.match(error.message, /available/);
    const second = ledger.reserve('a', null, 400); // exactly what is left
    assert.equal(ledger.reserved('a'), 1000);
    assert.equal(ledger.openReservations, 2);
    ledger.release(first);
    ledger.release(second);
    assert.equal(ledger.reserved('a'), 0);
    assert.equal(ledger.openReservations, 0);
  });

  test('an empty (or negative) balance is refused even for a tiny amount', () => {
    ledger.applyAccount(account('empty', 0));
    const error = assertGatewayError(() => ledger.reserve('empty', null, 1), 402, 'insufficient_quota');
    assert.match(error.message, /used up/);
    ledger.applyAccount(account('negative', -50));
    assertGatewayError(() => ledger.reserve('negative', null, 1), 402, 'insufficient_quota');
    assert.equal(ledger.openReservations, 0);
  });

  test('a disabled or unknown account is refused with 401', () => {
    ledger.applyAccount(account('off', 10_000, true));
    assertGatewayError(() => ledger.reserve('off', null, 1), 401, 'authentication_error');
    assertGatewayError(() => ledger.reserve('nobody', null, 1), 401, 'authentication_error');
    // re-enabled by the state sync
    ledger.applyAccount(account('off', 10_000, false));
    ledger.release(ledger.reserve('off', null, 1));
  });
});

describe('settle and release', () => {
  test('settle charges the real cost (even above the hold) and frees the hold', () => {
    ledger.applyAccount(account('a', 10_000));
    const hold = ledger.reserve('a', { id: 'k', maxSpendNano: null }, 500);
    ledger.settle(hold, 700, { entryKey: 'charge:r1', requestId: 'r1' });
    assert.equal(hold.open, false);
    assert.equal(ledger.reserved('a'), 0);
    assert.equal(ledger.balance('a'), 9_300);
    assert.equal(ledger.keySpent('k'), 700);
    assert.equal(queued.length, 1);
    assert.deepEqual(
      { entryKey: queued[0]!.entryKey, kind: queued[0]!.kind, amount: queued[0]!.amountNano, key: queued[0]!.keyId, req: queued[0]!.requestId },
      { entryKey: 'charge:r1', kind: 'charge', amount: -700, key: 'k', req: 'r1' },
    );
  });

  test('a zero cost journals nothing', () => {
    ledger.applyAccount(account('a', 10_000));
    ledger.settle(ledger.reserve('a', null, 500), 0, { entryKey: 'charge:r0', requestId: 'r0' });
    assert.equal(queued.length, 0);
    assert.equal(ledger.balance('a'), 10_000);
    assert.equal(ledger.openReservations, 0);
  });

  test('a hold is settled or released exactly once: later calls change nothing', () => {
    ledger.applyAccount(account('a', 10_000));
    const hold = ledger.reserve('a', null, 500);
    const other = ledger.reserve('a', null, 300);
    ledger.settle(hold, 200, { entryKey: 'charge:r1', requestId: 'r1' });
    ledger.settle(hold, 200, { entryKey: 'charge:r1b', requestId: 'r1' });
    ledger.release(hold);
    assert.equal(queued.length, 1, 'one journal entry');
    assert.equal(ledger.balance('a'), 9_800);
    assert.equal(ledger.reserved('a'), 300, "the other request's hold is untouched");
    assert.equal(ledger.openReservations, 1);

    ledger.release(other);
    ledger.release(other);
    ledger.settle(other, 100, { entryKey: 'charge:r2', requestId: 'r2' });
    assert.equal(queued.length, 1, 'a released hold is never charged afterwards');
    assert.equal(ledger.reserved('a'), 0);
    assert.equal(ledger.openReservations, 0);
    assert.equal(ledger.balance('a'), 9_800);
  });
});

describe('key spend cap', () => {
  test('holds and charges count against the cap; reaching it refuses with 402', () => {
    ledger.applyAccount(account('a', 1_000_000));
    const key = { id: 'k', maxSpendNano: 1000 };
    const first = ledger.reserve('a', key, 600);
    assertGatewayError(() => ledger.reserve('a', key, 500), 402, 'insufficient_quota'); // 600 held + 500 > 1000
    ledger.settle(first, 300, { entryKey: 'charge:1', requestId: '1' });
    assert.equal(ledger.keySpent('k'), 300);
    const second = ledger.reserve('a', key, 700); // 300 + 700 = 1000: allowed
    ledger.settle(second, 700, { entryKey: 'charge:2', requestId: '2' });
    assert.equal(ledger.keySpent('k'), 1000);
    const error = assertGatewayError(() => ledger.reserve('a', key, 1), 402, 'insufficient_quota');
    assert.match(error.message, /spend cap/);
    // another key of the same account is not affected
    ledger.release(ledger.reserve('a', { id: 'k2', maxSpendNano: 1000 }, 1000));
    // the committed spend from the database counts too
    ledger.applyKeySpend('k3', 950);
    assertGatewayError(() => ledger.reserve('a', { id: 'k3', maxSpendNano: 1000 }, 51), 402, 'insufficient_quota');
    assert.equal(ledger.openReservations, 0);
  });

  test('a refused cap leaves the account hold untouched', () => {
    ledger.applyAccount(account('a', 1_000_000));
    assertGatewayError(() => ledger.reserve('a', { id: 'k', maxSpendNano: 10 }, 11), 402, 'insufficient_quota');
    assert.equal(ledger.reserved('a'), 0);
    assert.equal(ledger.openReservations, 0);
  });
});

describe('adjust and reconcile', () => {
  test('after a flush, entries move from local to committed and the balance is unchanged', () => {
    const stored = new Set<string>();
    ledger.applyAccount(account('a', 0));
    ledger.adjust('a', 5_000, 'credit', 'credit:1', 'top-up');
    ledger.settle(ledger.reserve('a', { id: 'k', maxSpendNano: null }, 1000), 800, { entryKey: 'charge:1', requestId: '1' });
    assert.equal(ledger.balance('a'), 4_200);
    flush(stored);
    assert.equal(ledger.balance('a'), 4_200);
    assert.equal(ledger.keySpent('k'), 800);
    // the database row then arrives through the state sync: no double counting
    ledger.applyAccount(account('a', 4_200));
    ledger.applyKeySpend('k', 800);
    assert.equal(ledger.balance('a'), 4_200);
    assert.equal(ledger.keySpent('k'), 800);
  });

  test('a duplicate entry key in one flushed batch is counted once, as the database counts it', () => {
    const stored = new Set<string>();
    ledger.applyAccount(account('a', 0));
    // a credit retried with the same idempotency key before the first one was flushed
    ledger.adjust('a', 5_000, 'credit', 'credit:a:idem-1', null);
    ledger.adjust('a', 5_000, 'credit', 'credit:a:idem-1', null);
    // a charge journalled twice under the same request's entry key
    ledger.settle(ledger.reserve('a', { id: 'k', maxSpendNano: null }, 100), 100, { entryKey: 'charge:r', requestId: 'r' });
    ledger.settle(ledger.reserve('a', { id: 'k', maxSpendNano: null }, 100), 100, { entryKey: 'charge:r', requestId: 'r' });
    flush(stored);
    assert.equal(stored.size, 2);
    // the database holds one credit of 5000 and one charge of 100
    assert.equal(ledger.balance('a'), 4_900);
    assert.equal(ledger.keySpent('k'), 100);
    ledger.applyAccount(account('a', 4_900));
    ledger.applyKeySpend('k', 100);
    assert.equal(ledger.balance('a'), 4_900);
    assert.equal(ledger.keySpent('k'), 100);
  });

  test('an entry whose key is already stored (a retry after the first flush) is dropped from the balance', () => {
    const stored = new Set<string>();
    ledger.applyAccount(account('a', 0));
    ledger.adjust('a', 2_000, 'credit', 'credit:a:same', null);
    flush(stored);
    ledger.applyAccount(account('a', 2_000));
    ledger.adjust('a', 2_000, 'credit', 'credit:a:same', null);
    assert.equal(ledger.balance('a'), 4_000, 'applied locally until the database says otherwise');
    flush(stored);
    assert.equal(ledger.balance('a'), 2_000);
  });

  test('negative corrections lower the balance', () => {
    ledger.applyAccount(account('a', 1_000));
    ledger.adjust('a', -400, 'correction', 'fix:1', 'refund reversal');
    assert.equal(ledger.balance('a'), 600);
    assert.equal(queued[0]!.kind, 'correction');
    assert.equal(queued[0]!.amountNano, -400);
  });
});
