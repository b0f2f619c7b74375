// The console's amounts as a person reads them on cards and in tables (the exact value is on hover
// and in the ledger): half-up to cents, under a cent but not zero as "<$0.01", negative with a minus sign.
import assert from 'node:assert/strict';
import { test } from 'node:test';

// format.ts reads the reader's language from the browser; English here
Object.assign(globalThis, { localStorage: { getItem: () => 'en', setItem: () => undefined }, document: { documentElement: {} } });
const { cents, money } = await import('../../console/src/lib/format.ts');

test('cents: half-up to cents, "<$0.01" under a cent, a minus sign for negatives; money keeps every digit', () => {
  const cases: Array<[string, string]> = [
    ['12.345', '$12.35'],
    ['12.3449999', '$12.34'],
    ['0.995', '$1.00'],
    ['1234.5', '$1,234.50'],
    ['0', '$0.00'],
    ['0.01', '$0.01'],
    ['0.0099', '<$0.01'],
    ['0.0000045', '<$0.01'],
    ['-3', '\u2212$3.00'],
    ['-12.3456', '\u2212$12.35'],
    ['-0.0001', '\u2212<$0.01'],
  ];
  for (const [usd, shown] of cases) assert.equal(cents(usd), shown, usd);
  assert.equal(cents(null), '—');
  assert.equal(money('12.3456789'), '$12.3456789');
  assert.equal(money('0.0000045'), '$0.0000045');
});
