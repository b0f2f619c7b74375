// RowStatement: a multi-row statement compiled once per row count and reused with new values.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { RowStatement, statementChunks } from '../../src/store/row-statement.ts';
import { nodeSqliteDialect } from '../../src/store/sqlite-dialect.ts';

interface Things {
  things: { name: string; size: number; note: string | null };
}

describe('RowStatement', () => {
  const db = new Kysely<Things>({ dialect: nodeSqliteDialect(':memory:') });
  after(() => db.destroy());
  const insert = new RowStatement(['name', 'size', 'note'] as const, (rows) => db.insertInto('things').values(rows as Things['things'][]));

  test('binds each value (given in column order) to its row and column; null and undefined become NULL', async () => {
    await sql`create table things (name text not null, size integer not null, note text)`.execute(db);
    await db.executeQuery(insert.compile([
      ['a', 1, 'first'],
      ['b', 2, null],
      ['c', 3, undefined],
    ]));
    await db.executeQuery(insert.compile([['d', 4, 'fourth']]));
    const stored = await db.selectFrom('things').selectAll().orderBy('name').execute();
    assert.deepEqual(stored.map((row) => ({ ...row })), [
      { name: 'a', size: 1, note: 'first' },
      { name: 'b', size: 2, note: null },
      { name: 'c', size: 3, note: null },
      { name: 'd', size: 4, note: 'fourth' },
    ]);
  });

  test('the SQL of a row count is compiled once and reused; other counts get their own', () => {
    const first = insert.compile([['x', 1, null], ['y', 2, null]]);
    const second = insert.compile([['z', 3, 'n'], ['w', 4, null]]);
    assert.equal(first.sql, second.sql);
    assert.deepEqual(second.parameters, ['z', 3, 'n', 'w', 4, null]);
    assert.notEqual(insert.compile([['x', 1, null]]).sql, first.sql);
  });

  test('a statement that binds anything besides the row values is refused', () => {
    // a constant bound as a parameter would shift every later value into the wrong column
    const withConstant = new RowStatement(['name', 'size'] as const, (rows) =>
      db.insertInto('things').values(rows.map((row) => ({ ...row, note: 'constant' })) as Things['things'][]),
    );
    assert.throws(() => withConstant.compile([['a', 1]]), /must bind each of the 2 row values once/);
  });

  test('statementChunks: rows in order, in statements of 64 and then powers of two (at most seven shapes)', () => {
    const shapes = new Set<number>();
    for (let n = 0; n <= 300; n++) {
      const rows = Array.from({ length: n }, (_, i) => i);
      const parts = statementChunks(rows);
      assert.deepEqual(parts.flat(), rows, `${n} rows`);
      for (const part of parts) shapes.add(part.length);
      // the rest after the 64s is written as its binary digits: one statement per set bit
      const rest = parts.filter((part) => part.length < 64).map((part) => part.length);
      assert.deepEqual(rest, [32, 16, 8, 4, 2, 1].filter((size) => (n % 64) & size), `${n} rows`);
    }
    assert.deepEqual([...shapes].sort((a, b) => a - b), [1, 2, 4, 8, 16, 32, 64]);
  });
});
