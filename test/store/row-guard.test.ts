// Rows are fitted to their columns when they are queued (src/store/row-guard.ts): whatever a
// caller put in a usage row or a journal entry, what reaches the flush is a value every column of
// SQLite and PostgreSQL takes — finite integers in range, text without NUL or lone surrogates
// within its length — and each kind of problem is reported once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LedgerEntry } from '../../src/store/repositories/ledger.ts';
import { RowGuard } from '../../src/store/row-guard.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';

function goodRow(): NewUsageRow {
  return {
    request_id: 'req_1', created_at: 1_700_000_000_000, account_id: 'acct_1', key_id: 'key_1', model: 'gpt-4o-mini 🙂', endpoint: '/v1/chat/completions',
    provider_id: 'prov_1', status: 200, prompt_tokens: 10, completion_tokens: 5, cached_tokens: 2, units: 1.5, cost_nano: 4_500, latency_ms: 12, estimated: 1,
    error_type: null, session_id: null,
  };
}

function guard(): { guard: RowGuard; reports: string[] } {
  const reports: string[] = [];
  return { guard: new RowGuard((column, problem) => reports.push(`${column}: ${problem}`)), reports };
}

/** what every column of both databases takes */
function assertFits(row: NewUsageRow): void {
  for (const [column, value] of Object.entries(row)) {
    if (value === null) continue;
    if (typeof value === 'string') {
      assert.ok(value.isWellFormed() && !value.includes('\0') && value.length <= 256, `${column} is clean text within 256 characters`);
    } else {
      assert.equal(typeof value, 'number', `${column} is a number`);
      assert.ok(Number.isFinite(value), `${column} is finite`);
      if (column !== 'units') assert.ok(Number.isSafeInteger(value), `${column} is an integer`);
    }
  }
  for (const column of ['status', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'latency_ms'] as const) {
    assert.ok(row[column] >= 0 && row[column] <= 2_147_483_647, `${column} fits a PostgreSQL integer`);
  }
  assert.ok(row.estimated === 0 || row.estimated === 1);
}

test('a row that fits is left exactly as it was, and nothing is reported', () => {
  const { guard: g, reports } = guard();
  const row = goodRow();
  assert.equal(g.usage(row), row, 'in place: no copy');
  assert.deepEqual(row, goodRow());
  assert.deepEqual(reports, []);
});

test('every column of a hostile usage row is fitted: arrays, NaN, Infinity, NUL, lone surrogates, megabyte strings, huge numbers', () => {
  const { guard: g, reports } = guard();
  const deep: unknown[] = [];
  let level = deep;
  for (let i = 0; i < 100_000; i++) level = (level[0] = []) as unknown[];
  const row = {
    request_id: 'req\0\ud800x',
    created_at: Number.NaN,
    account_id: { id: 'acct' },
    key_id: null,
    model: ['gpt-4o', { nested: true }],
    endpoint: 'e'.repeat(1 << 20),
    provider_id: deep,
    status: 2 ** 40,
    prompt_tokens: Number.NaN,
    completion_tokens: Number.POSITIVE_INFINITY,
    cached_tokens: -5,
    units: Number.NEGATIVE_INFINITY,
    cost_nano: 12.6,
    latency_ms: '17',
    estimated: 7,
    error_type: '\udfffoops\0',
    session_id: 10n,
  } as unknown as NewUsageRow;
  g.usage(row);
  assertFits(row);
  assert.equal(row.model, '["gpt-4o",{"nested":true}]', 'a structure is kept as its JSON text');
  assert.equal(row.request_id, 'req\ufffdx');
  assert.equal(row.created_at, 0);
  assert.equal(row.account_id, '{"id":"acct"}');
  assert.equal(row.key_id, '', 'NOT NULL text: empty rather than null');
  assert.equal(row.endpoint.length, 256);
  assert.equal(row.provider_id, '[array]', 'a structure too deep to encode is named, not recursed');
  assert.equal(row.status, 2_147_483_647);
  assert.equal(row.prompt_tokens, 0);
  assert.equal(row.completion_tokens, 2_147_483_647);
  assert.equal(row.cached_tokens, 0);
  assert.equal(row.units, -1e15);
  assert.equal(row.cost_nano, 13);
  assert.equal(row.latency_ms, 17);
  assert.equal(row.estimated, 1);
  assert.equal(row.error_type, '\ufffdoops');
  assert.equal(row.session_id, '10');
  assert.ok(reports.some((r) => r.startsWith('usage_log.model: array')));
  assert.ok(reports.some((r) => r.startsWith('usage_log.prompt_tokens: not a number')));

  // the same problems again are not reported again
  const count = reports.length;
  g.usage({ ...goodRow(), model: ['x'] as unknown as string, prompt_tokens: Number.NaN });
  assert.equal(reports.length, count, 'reported once per column and kind of problem');
});

test('a journal entry is fitted too: its amount becomes a finite integer the ledger can apply', () => {
  const { guard: g } = guard();
  const nan: LedgerEntry = { entryKey: 'k1', accountId: 'acct', keyId: null, requestId: null, kind: 'charge', amountNano: Number.NaN, note: 'a\0b', createdAt: Date.now() };
  g.entry(nan);
  assert.equal(nan.amountNano, 0);
  assert.equal(nan.note, 'ab');
  const huge: LedgerEntry = { ...nan, entryKey: 'k2', amountNano: Number.NEGATIVE_INFINITY, note: '\ud83d'.repeat(2000) };
  g.entry(huge);
  assert.equal(huge.amountNano, -Number.MAX_SAFE_INTEGER);
  assert.ok(huge.note!.length <= 1024 && huge.note!.isWellFormed());
});

test('an identifier too long for its unique index keeps a prefix and a hash: two long ids never merge', () => {
  const { guard: g } = guard();
  const prefix = 'credit:acct_1:'.padEnd(400, 'x');
  const a: LedgerEntry = { entryKey: `${prefix}a`, accountId: 'acct_1', keyId: null, requestId: null, kind: 'credit', amountNano: 1, note: null, createdAt: 1 };
  const b: LedgerEntry = { ...a, entryKey: `${prefix}b` };
  g.entry(a);
  g.entry(b);
  assert.ok(a.entryKey.length <= 256 && b.entryKey.length <= 256);
  assert.notEqual(a.entryKey, b.entryKey);
  assert.ok(a.entryKey.startsWith('credit:acct_1:xxx'));
  const again: LedgerEntry = { ...a, entryKey: `${prefix}a` };
  g.entry(again);
  assert.equal(again.entryKey, a.entryKey, 'the same id maps to the same key: a retried credit stays idempotent');
});
