// The usage rollups on SQLite and PostgreSQL: kept in the flush transaction, they always equal
// what the usage rows add up to (per hour and per UTC day, per every dimension), and the range
// arithmetic that mixes daily and hourly rows counts every hour once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rangeParts, rollupSeries, rollupTop, rollupTotals } from '../../src/store/repositories/usage-stats.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { backfill } from '../../src/store/migrations/003-console.ts';
import { createFlusher } from '../../src/store/flusher.ts';
import { encodeUsageRow, ledgerRepository } from '../../src/store/repositories/ledger.ts';
import { aggregateUsage, DAY_MS, HOUR_MS, latencyBucket } from '../../src/store/usage-aggregate.ts';
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from '../../src/store/console-schema.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { bothDatabases } from '../helpers/databases.ts';

const T0 = Date.UTC(2026, 0, 10, 0, 0, 0);

function rows(n: number, seed = 7): NewUsageRow[] {
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, (_, i) => ({
    request_id: `req_${seed}_${i}`,
    created_at: T0 + Math.floor(rand() * 5 * DAY_MS),
    account_id: rand() < 0.5 ? 'acct_a' : 'acct_b',
    key_id: rand() < 0.5 ? 'key_1' : 'key_2',
    model: ['gpt-4o', 'gpt-4o-mini', 'text-embedding-3-small'][Math.floor(rand() * 3)]!,
    endpoint: rand() < 0.8 ? '/v1/chat/completions' : '/v1/embeddings',
    provider_id: rand() < 0.9 ? 'prov_1' : null,
    status: rand() < 0.9 ? 200 : 502,
    prompt_tokens: Math.floor(rand() * 1000),
    completion_tokens: Math.floor(rand() * 500),
    cached_tokens: 0,
    units: 0,
    cost_nano: Math.floor(rand() * 1_000_000),
    latency_ms: Math.floor(rand() * 40_000),
    estimated: 0,
    error_type: null,
    session_id: null,
  }));
}

test('a latency falls in the first bucket whose bound it does not pass, past the last in the overflow column', () => {
  assert.equal(LATENCY_COLUMNS.length, LATENCY_BOUNDS_MS.length + 1);
  assert.equal(latencyBucket(0), 0);
  LATENCY_BOUNDS_MS.forEach((bound, i) => {
    assert.equal(latencyBucket(bound), i, `${bound} ms`);
    assert.equal(latencyBucket(bound + 1), i + 1, `${bound + 1} ms`);
  });
  assert.equal(latencyBucket(Number.MAX_SAFE_INTEGER), LATENCY_BOUNDS_MS.length);
  assert.equal(latencyBucket(Number.NaN), LATENCY_BOUNDS_MS.length);
});

test('aggregated rows carry every rollup column, as numbers where they are sums', () => {
  const [row] = aggregateUsage(rows(1), HOUR_MS);
  for (const column of LATENCY_COLUMNS) assert.equal(typeof row![column], 'number', column);
  assert.equal(row!.requests, 1);
  assert.equal(LATENCY_COLUMNS.reduce((sum, column) => sum + Number(row![column]), 0), 1);
});

test('rangeParts covers every hour of a range exactly once', () => {
  for (const [from, to] of [
    [T0 + 5 * HOUR_MS, T0 + 3 * DAY_MS + 7 * HOUR_MS],
    [T0, T0 + 2 * DAY_MS],
    [T0 + 3 * HOUR_MS, T0 + 9 * HOUR_MS],
    [T0 + 23 * HOUR_MS, T0 + 25 * HOUR_MS],
  ] as const) {
    const hours = new Set<number>();
    for (const part of rangeParts(from, to)) {
      const width = part.table === 'usage_rollup_day' ? DAY_MS : HOUR_MS;
      for (let b = part.from; b < part.to; b += HOUR_MS) {
        assert.ok(!hours.has(b), 'counted twice');
        hours.add(b);
      }
      assert.equal((part.to - part.from) % width, 0);
    }
    assert.equal(hours.size, Math.ceil(to / HOUR_MS) - Math.floor(from / HOUR_MS));
  }
});

for (const database of bothDatabases('rollup')) {
  describe(`usage rollups on ${database.name}`, () => {
    let store: Store;
    const written = rows(3000);
    const extra = rows(150, 11);
    const inPlace = rows(200, 13);
    const all = [...written, ...extra, ...inPlace];
    before(async () => {
      store = await openStore(database.url);
      // the gateway's own flusher (on SQLite the flush thread, which sums the rows a statement at
      // a time); several flushes, so existing rollup rows are added to, not just inserted
      const flusher = createFlusher(store);
      const flush = (usage: NewUsageRow[]) => flusher.flush({ entries: [], usage: flusher.takesEncodedRows ? usage.map(encodeUsageRow) : usage, touches: [] });
      try {
        for (let i = 0; i < written.length; i += 700) await flush(written.slice(i, i + 700));
        // rows written already are not summed again: a batch retried whole, and one where they
        // are mixed with new rows inside one statement's chunk
        await flush(written.slice(0, 700));
        await flush(written.slice(1000, 1100).flatMap((row, i) => [row, extra[i]!]));
        await flush(extra.slice(100));
      } finally {
        await flusher.close();
      }
      // the in-place flush (the repository's), as an in-memory SQLite database or an instance without the thread writes
      const ledger = ledgerRepository(store.db);
      await ledger.flush({ entries: [], usage: inPlace, touches: [] });
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    test('each rollup table equals the aggregate of the usage rows, dimension by dimension', async () => {
      for (const [table, width] of [['usage_rollup_hour', HOUR_MS], ['usage_rollup_day', DAY_MS]] as const) {
        const stored = await store.db.selectFrom(table).selectAll().execute();
        const expected = aggregateUsage(all, width);
        const key = (r: Record<string, unknown>) => [r.bucket, r.account_id, r.key_id, r.model, r.provider_id, r.endpoint, r.is_error].join('|');
        const byKey = new Map(expected.map((r) => [key(r), r]));
        assert.equal(stored.length, expected.length, table);
        for (const row of stored) {
          const want = byKey.get(key(row));
          assert.ok(want, `unexpected rollup row ${key(row)}`);
          for (const [column, value] of Object.entries(want)) assert.equal(Number((row as Record<string, unknown>)[column]), Number(value), `${table}.${column}`);
        }
      }
    });

    test('the migration back-fill builds the same rollups from usage rows', async () => {
      const before = await store.db.selectFrom('usage_rollup_day').selectAll().orderBy(['bucket', 'account_id', 'key_id', 'model', 'provider_id', 'endpoint', 'is_error']).execute();
      await store.db.deleteFrom('usage_rollup_day').execute();
      await backfill(store.db as never, 'usage_rollup_day', DAY_MS);
      const after = await store.db.selectFrom('usage_rollup_day').selectAll().orderBy(['bucket', 'account_id', 'key_id', 'model', 'provider_id', 'endpoint', 'is_error']).execute();
      assert.deepEqual(after.map((r) => Object.values(r).map(Number)), before.map((r) => Object.values(r).map(Number)));
    });

    test('totals, series and top lists match the rows they summarise', async () => {
      const from = T0 + 7 * HOUR_MS;
      const to = T0 + 3 * DAY_MS + 5 * HOUR_MS;
      const inRange = all.filter((r) => r.created_at >= from && r.created_at < to && r.account_id === 'acct_a');
      const totals = await rollupTotals(store.db, { from, to, accountId: 'acct_a' });
      assert.equal(totals.requests, inRange.length);
      assert.equal(totals.errors, inRange.filter((r) => r.status >= 400).length);
      assert.equal(totals.costNano, inRange.reduce((s, r) => s + r.cost_nano!, 0));
      assert.equal(totals.latency.reduce((a, b) => a + b, 0), inRange.length);

      const errorsOnly = await rollupTotals(store.db, { from, to, accountId: 'acct_a', status: 'error', model: 'gpt-4o' });
      assert.equal(errorsOnly.requests, inRange.filter((r) => r.status >= 400 && r.model === 'gpt-4o').length);

      const series = await rollupSeries(store.db, { from: T0, to: T0 + 5 * DAY_MS, accountId: 'acct_b' }, { granularity: 'day', group: 'model', dayOrigin: T0 });
      for (const point of series) {
        const day = all.filter((r) => r.account_id === 'acct_b' && r.model === point.group && r.created_at >= point.bucket && r.created_at < point.bucket + DAY_MS);
        assert.equal(point.requests, day.length);
        assert.equal(point.costNano, day.reduce((s, r) => s + r.cost_nano!, 0));
      }
      const hourly = await rollupSeries(store.db, { from: T0, to: T0 + DAY_MS }, { granularity: 'hour', group: null });
      assert.equal(hourly.reduce((s, p) => s + p.requests, 0), all.filter((r) => r.created_at < T0 + DAY_MS).length);

      const top = await rollupTop(store.db, { from: T0, to: T0 + 5 * DAY_MS }, 'account_id', 5);
      for (const entry of top) assert.equal(entry.costNano, all.filter((r) => r.account_id === entry.id).reduce((s, r) => s + r.cost_nano!, 0));
      assert.ok(top[0]!.costNano >= top[1]!.costNano);
    });
  });
}
