import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import { BUDGET_PERIODS } from '../core/budget-period.ts';
import { bind, CHUNK_SIZES, rowsWithKeys, type ByRowCount, type FlushConnection, type FlushStatements, type FreshInsert, type InsertFresh, type Run, type Template } from './flush-sql.ts';
import { LEDGER_COLUMNS, USAGE_COLUMNS } from './ledger-rows.ts';
import { RowStatement } from './row-statement.ts';
import type { Database } from './schema.ts';
import { ROLLUP_COLUMNS, ROLLUP_KEY_COLUMNS, ROLLUP_MEASURES, ROLLUP_TABLES } from './usage-aggregate.ts';

/**
 * Where a value goes in a statement compiled once: the builder is given these in place of the
 * values, and each one it binds names the value's index (flush-sql.ts: Template.slots).
 */
class Slot {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/** a Slot where the builder's types want a value */
const slot = (index: number) => new Slot(index) as never;

/** The template of a statement built with `width` slots: each bound at least once, other parameters kept as constants. */
function templateOf(compiled: CompiledQuery, width: number): Template {
  const constants: unknown[] = [];
  const slots = Int32Array.from(compiled.parameters, (parameter) => {
    if (parameter instanceof Slot) return parameter.index;
    constants.push(parameter);
    return -constants.length;
  });
  const bound = new Set(slots.filter((s) => s >= 0));
  if (bound.size !== width || [...bound].some((s) => s >= width)) throw new Error(`flush statement: ${width} values, bound ${[...bound].sort().join(',')}: ${compiled.sql}`);
  return { sql: compiled.sql, slots, constants, width };
}

type SpendColumn = `spent_${'day' | 'week' | 'month'}_${'start' | 'nano'}`;

/**
 * The SET of a row's spend-per-period columns for a batch's charges in the kinds of `kinds` (bit
 * i: BUDGET_PERIODS[i]), as the row has them at commit (every instance's flushes add up): the
 * same period adds, a later one starts over, an earlier one (the row already counts a later
 * period) changes nothing. Binds a (start, nano) pair of slots per kind from `first` on.
 */
function periodSpendSets(kinds: number, first: number): Partial<Record<SpendColumn, RawBuilder<number>>> {
  const sets: Partial<Record<SpendColumn, RawBuilder<number>>> = {};
  let next = first;
  BUDGET_PERIODS.forEach((kind, i) => {
    if (!(kinds & (1 << i))) return;
    const start = slot(next++);
    const nano = slot(next++);
    const startColumn = sql.ref(`spent_${kind}_start`);
    const nanoColumn = sql.ref(`spent_${kind}_nano`);
    sets[`spent_${kind}_nano`] = sql<number>`case when ${startColumn} = ${start} then ${nanoColumn} + cast(${nano} as bigint) when ${startColumn} < ${start} then cast(${nano} as bigint) else ${nanoColumn} end`;
    sets[`spent_${kind}_start`] = sql<number>`case when ${startColumn} < ${start} then cast(${start} as bigint) else ${startColumn} end`;
  });
  return sets;
}

const KIND_SETS = Array.from({ length: 1 << BUDGET_PERIODS.length }, (_, kinds) => kinds);
const bitCount = (n: number) => n.toString(2).replaceAll('0', '').length;

/** yields to the event loop between two statements: the first compile is cold (~70 ms in all) */
export const betweenStatements = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Every statement of a flush, compiled by the query builder in `db`'s dialect: ~45 templates,
 * compiled once per flusher, then bound to each batch's values. `pause` runs between statements:
 * cold, the whole set takes ~70 ms of CPU, too long to hold the event loop in one piece.
 */
export async function compileFlushStatements(db: Kysely<Database>, pause: () => Promise<void> = betweenStatements): Promise<FlushStatements> {
  const byRowCount = async (statement: RowStatement<string>): Promise<ByRowCount> => {
    const templates: ByRowCount = {};
    for (const n of CHUNK_SIZES) {
      templates[n] = statement.template(n);
      await pause();
    }
    return templates;
  };
  const byKinds = async (compile: (kinds: number) => Template): Promise<Template[]> => {
    const templates: Template[] = [];
    for (const kinds of KIND_SETS) {
      templates.push(compile(kinds));
      await pause();
    }
    return templates;
  };
  // rows of `columns` into `table`, skipping a row whose `key` is there already (FreshInsert)
  const freshInsert = async (table: 'ledger' | 'usage_log', columns: readonly string[], key: 'entry_key' | 'request_id'): Promise<FreshInsert> => {
    const insert = (returning: boolean) =>
      new RowStatement(columns, (rows) => {
        const query = db
          .insertInto(table)
          .values(rows as never)
          .onConflict((oc) => oc.column(key).doNothing());
        return returning ? query.returning(key) : query;
      });
    return {
      returning: await byRowCount(insert(true)),
      quiet: await byRowCount(insert(false)),
      lastId: templateOf(db.selectFrom(table).select((eb) => eb.fn.max('id').as('id')).compile(), 0),
      keysSince: templateOf(db.selectFrom(table).select(key).where('id', '>', slot(0)).compile(), 1),
      key: columns.indexOf(key),
    };
  };
  const upsertRollups: ByRowCount[] = [];
  for (const [table] of ROLLUP_TABLES) {
    const upsert = new RowStatement(ROLLUP_COLUMNS, (rows) =>
      db
        .insertInto(table)
        .values(rows as never)
        .onConflict((oc) =>
          oc.columns([...ROLLUP_KEY_COLUMNS]).doUpdateSet((eb) => {
            const set: Record<string, unknown> = {};
            for (const m of ROLLUP_MEASURES) set[m] = eb(eb.ref(`${table}.${m}`), '+', eb.ref(`excluded.${m}`));
            return set as never;
          }),
        ),
    );
    upsertRollups.push(await byRowCount(upsert));
  }
  // values: [delta, (start, nano) per kind charged, seq, updated_at, id]
  const updateAccount = await byKinds((kinds) => {
    const n = 1 + 2 * bitCount(kinds);
    const query = db
      .updateTable('accounts')
      .set((eb) => ({ balance_nano: eb('balance_nano', '+', slot(0)), ...periodSpendSets(kinds, 1), seq: slot(n), updated_at: slot(n + 1) }))
      .where('id', '=', slot(n + 2));
    return templateOf(query.compile(), n + 3);
  });
  // values: [delta, (start, nano) per kind charged, seq, id]
  const updateKey = await byKinds((kinds) => {
    const n = 1 + 2 * bitCount(kinds);
    const query = db
      .updateTable('api_keys')
      .set((eb) => ({ spent_nano: eb('spent_nano', '+', slot(0)), ...periodSpendSets(kinds, 1), seq: slot(n) }))
      .where('id', '=', slot(n + 1));
    return templateOf(query.compile(), n + 2);
  });
  return {
    insertLedger: await freshInsert('ledger', LEDGER_COLUMNS, 'entry_key'),
    insertUsage: await freshInsert('usage_log', USAGE_COLUMNS, 'request_id'),
    upsertRollups: upsertRollups as [ByRowCount, ByRowCount],
    nextSeq: templateOf(
      db
        .updateTable('meta')
        .set((eb) => ({ value: eb('value', '+', 1) }))
        .where('name', '=', 'seq')
        .returning('value')
        .compile(),
      0,
    ),
    updateAccount,
    updateKey,
    touchKey: templateOf(db.updateTable('api_keys').set({ last_used_at: slot(0) }).where('id', '=', slot(1)).compile(), 2),
    insertDeadLetter: templateOf(
      db
        .insertInto('dead_letters')
        .values({ table_name: slot(0), row_key: slot(1), error: slot(2), row_json: slot(3), created_at: slot(4) })
        .onConflict((oc) => oc.columns(['table_name', 'row_key']).doNothing())
        .returning('id')
        .compile(),
      5,
    ),
  };
}

/** The flush's statements run through `db` itself (PostgreSQL, an in-memory SQLite: the main thread). */
export function kyselyFlushConnection(db: Kysely<Database>): FlushConnection {
  const runOn =
    (executor: Kysely<Database>): Run =>
    async <Row extends unknown[]>(template: Template, rows: readonly (readonly unknown[])[]) =>
      // a row's properties are in the order of its columns
      (await executor.executeQuery<Record<string, unknown>>(CompiledQuery.raw(template.sql, bind(template, rows)))).rows.map((row) => Object.values(row) as Row);
  // RETURNING the keys written, in the one statement: on PostgreSQL the clause is the server's work, and a round trip less
  const insertFreshOn =
    (run: Run): InsertFresh =>
    async (insert, rows) =>
      rowsWithKeys(rows, insert.key, (await run<[unknown]>(insert.returning[rows.length]!, rows)).map(([key]) => key));
  return {
    transaction: (body) =>
      db.transaction().execute((trx) => {
        const run = runOn(trx);
        return body(run, insertFreshOn(run));
      }),
    run: runOn(db),
  };
}
