// Budget periods and the ledger's budget holds, with an injected clock.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ledger } from '../../src/billing/ledger.ts';
import { periodEnd, periodStart, type PeriodSpend } from '../../src/core/budget-period.ts';
import { GatewayError } from '../../src/core/errors.ts';
import type { LedgerEntry } from '../../src/store/repositories/ledger.ts';

const at = (iso: string) => Date.parse(iso);
const none = (): PeriodSpend => ({ day: { start: 0, nano: 0 }, week: { start: 0, nano: 0 }, month: { start: 0, nano: 0 } });

describe('budget periods (UTC)', () => {
  test('days, ISO weeks from Monday, calendar months', () => {
    // Sunday 2026-11-29 23:59 UTC
    const sunday = at('2026-11-29T23:59:59.999Z');
    assert.equal(periodStart('day', sunday), at('2026-11-29T00:00:00Z'));
    assert.equal(periodStart('week', sunday), at('2026-11-23T00:00:00Z'));
    assert.equal(periodEnd('week', sunday), at('2026-11-30T00:00:00Z'));
    const monday = at('2026-11-30T00:00:00Z');
    assert.equal(periodStart('week', monday), monday);
    assert.equal(periodStart('month', sunday), at('2026-11-01T00:00:00Z'));
    assert.equal(periodEnd('month', sunday), at('2026-12-01T00:00:00Z'));
    assert.equal(periodEnd('month', at('2026-12-31T12:00:00Z')), at('2027-01-01T00:00:00Z'));
    assert.equal(periodEnd('day', sunday), monday);
  });
});

describe('the ledger holds budgets like the balance', () => {
  function setup(now: { t: number }) {
    const entries: LedgerEntry[] = [];
    const ledger = new Ledger({ enqueue: (entry) => entries.push(entry) });
    ledger.clock = () => now.t;
    ledger.applyAccount({ id: 'a', name: 'a', email: null, balanceNano: 1_000_000, disabled: false, budgetNano: null, budgetPeriod: null, periodSpend: none(), seq: 1, createdAt: 0 });
    ledger.applyKeyBudget({ id: 'k', budgetNano: 1000, budgetPeriod: 'week', periodSpend: none() });
    return { ledger, entries };
  }
  const key = { id: 'k', maxSpendNano: null };

  test('holds count against the budget; a spent budget refuses with its reset; a new week starts at zero', () => {
    const now = { t: at('2026-11-29T12:00:00Z') };
    const { ledger, entries } = setup(now);
    const first = ledger.reserve('a', key, 600);
    assert.throws(() => ledger.reserve('a', key, 600), (error: GatewayError) => {
      assert.equal(error.status, 402);
      assert.match(error.message, /weekly budget of \$0\.000001 has \$0\.0000004 left, and this request may cost up to \$0\.0000006\./);
      assert.equal(error.headers?.['x-modelgate-budget-reset'], '2026-11-30T00:00:00.000Z');
      return true;
    });
    assert.equal(ledger.headroom('a', key), 400);
    // the overrun of one request
    ledger.settle(first, 1100, { entryKey: 'charge:1', requestId: '1' });
    assert.equal(ledger.budget('key', 'k')?.spentNano, 1100);
    assert.throws(() => ledger.requireHeadroom('a', key), (error: GatewayError) => {
      assert.equal(error.message, "This API key's weekly budget of $0.000001 is spent. It resets at 2026-11-30T00:00:00.000Z.");
      return true;
    });
    // committed: the spend moves from local to the row, unchanged
    ledger.reconcile(entries, new Set(['charge:1']));
    assert.equal(ledger.budget('key', 'k')?.spentNano, 1100);

    now.t = at('2026-11-30T00:00:00Z');
    assert.equal(ledger.budget('key', 'k')?.spentNano, 0);
    const next = ledger.reserve('a', key, 1000);
    ledger.release(next);
    assert.equal(ledger.headroom('a', key), 1000);
  });

  test('a charge of the old period flushed after the rollover does not count in the new one', () => {
    const now = { t: at('2026-11-29T23:59:59Z') };
    const { ledger, entries } = setup(now);
    ledger.settle(ledger.reserve('a', key, 300), 300, { entryKey: 'charge:old', requestId: 'old' });
    now.t = at('2026-11-30T00:00:01Z');
    ledger.settle(ledger.reserve('a', key, 200), 200, { entryKey: 'charge:new', requestId: 'new' });
    assert.equal(ledger.budget('key', 'k')?.spentNano, 200);
    ledger.reconcile(entries, new Set(['charge:old', 'charge:new']));
    assert.equal(ledger.budget('key', 'k')?.spentNano, 200);
    assert.equal(ledger.headroom('a', key), 800);
  });

  test('an account budget applies to every key of the account', () => {
    const now = { t: at('2026-11-10T08:00:00Z') };
    const { ledger } = setup(now);
    ledger.applyAccount({ id: 'a', name: 'a', email: null, balanceNano: 1_000_000, disabled: false, budgetNano: 500, budgetPeriod: 'month', periodSpend: { ...none(), month: { start: at('2026-11-01T00:00:00Z'), nano: 450 } }, seq: 2, createdAt: 0 });
    assert.equal(ledger.headroom('a', { id: 'other', maxSpendNano: null }), 50);
    assert.throws(() => ledger.reserve('a', { id: 'other', maxSpendNano: null }, 51), /This account's monthly budget/);
    // last month's row spend does not count
    now.t = at('2026-12-01T00:00:00Z');
    assert.equal(ledger.headroom('a', { id: 'other', maxSpendNano: null }), 500);
  });
});
