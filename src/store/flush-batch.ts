import { BUDGET_PERIODS, type PeriodSpend } from '../core/budget-period.ts';
import type { FlushConnection, FlushStatements, Run, Template } from './flush-sql.ts';
import { statementChunks } from './flush-sql.ts';
import { parsedChunks } from './json-lines.ts';
import { ledgerValues, usageValuesOf, type FlushResult, type KeyTouch, type LedgerEntry, type QueuedUsageRow, type UsageValues, type WriteBatch } from './ledger-rows.ts';
import type { DeadLetter } from './repositories/dead-letters.ts';
import { PeriodDeltas } from './repositories/period-spend.ts';
import { dimensionKey, ROLLUP_COLUMNS, ROLLUP_TABLES, RollupSums } from './usage-aggregate.ts';

// The write-behind flush: the same code on the flush thread (an SQLite file) and on the main
// thread (PostgreSQL, an in-memory SQLite), over statements compiled for the dialect.

/**
 * A batch as writeBatch takes it: its rows a statement's worth at a time, in the sizes of
 * statementChunks, each chunk made when the flush reaches it (and garbage once it is run).
 */
export interface FlushRows {
  entries: Iterable<LedgerEntry[]>;
  /** bound as their values (an encoded row is parsed straight into them, never into a row object) */
  usage: Iterable<UsageValues[]>;
  touches: readonly KeyTouch[];
}

/** The rows of a batch held as objects (usage rows perhaps encoded, decoded a chunk at a time). */
export function rowsOfBatch(batch: WriteBatch): FlushRows {
  const { usage } = batch;
  return { entries: statementChunks(batch.entries), usage: Array.isArray(usage) ? usageChunks(usage) : parsedChunks<UsageValues>(usage), touches: batch.touches };
}

function* usageChunks(usage: readonly QueuedUsageRow[]): Generator<UsageValues[]> {
  for (const part of statementChunks(usage)) yield part.map(usageValuesOf);
}

/**
 * Writes one batch in one transaction: journal rows, the account balances and key spend they
 * change, usage rows and key last-use times, and the usage rollups. Balance = journal sum holds
 * after every commit. An entry key or request id already written is skipped, never applied twice.
 */
export function writeBatch(connection: FlushConnection, statements: FlushStatements, batch: FlushRows): Promise<FlushResult> {
  return connection.transaction(async (run, insertFresh) => {
    const written = new Set<string>();
    const accountDeltas = new Map<string, number>();
    const keyDeltas = new Map<string, number>();
    // charges per period (007-budgets), on accounts and keys, in the same transaction
    const accountPeriods = new PeriodDeltas();
    const keyPeriods = new PeriodDeltas();
    for (const part of batch.entries) {
      for (const values of await insertFresh(statements.insertLedger, part.map(ledgerValues))) {
        // read by index: this body runs below TurboFan, where destructuring a row walks the
        // array's iterator (see RollupSums.add)
        const entryKey = values[0];
        const accountId = values[1];
        const keyId = values[2];
        const kind = values[4];
        const amountNano = values[5];
        const createdAt = values[7];
        written.add(entryKey);
        accountDeltas.set(accountId, (accountDeltas.get(accountId) ?? 0) + amountNano);
        if (keyId && kind === 'charge') keyDeltas.set(keyId, (keyDeltas.get(keyId) ?? 0) - amountNano);
        if (kind === 'charge') {
          accountPeriods.add(accountId, createdAt, -amountNano);
          if (keyId) keyPeriods.add(keyId, createdAt, -amountNano);
        }
      }
    }

    const lastUse = new Map<string, number>();
    for (const t of batch.touches) lastUse.set(t.keyId, Math.max(lastUse.get(t.keyId) ?? 0, t.lastUsedAt));

    if (accountDeltas.size > 0 || keyDeltas.size > 0) {
      const seq = Number((await run<[value: number]>(statements.nextSeq, [[]]))[0]![0]);
      const now = Date.now();
      for (const [accountId, delta] of accountDeltas) await update(run, statements.updateAccount, delta, accountPeriods.get(accountId), [seq, now, accountId]);
      for (const [keyId, delta] of keyDeltas) await update(run, statements.updateKey, delta, keyPeriods.get(keyId), [seq, keyId]);
    }
    // last-use times are informational: no seq bump, so they do not make every instance reload the key
    for (const [keyId, at] of lastUse) await run(statements.touchKey, [[at, keyId]]);

    // a request id is written once: a batch retried after a lost commit acknowledgement adds nothing;
    // the rollups change exactly when the rows they summarise become visible, and hold only sums
    const rollups = ROLLUP_TABLES.map(([, width]) => new RollupSums(width));
    for (const part of batch.usage) {
      for (const values of await insertFresh(statements.insertUsage, part)) {
        const key = dimensionKey(values);
        for (const sums of rollups) sums.add(values, key);
      }
    }
    for (const [i, sums] of rollups.entries()) {
      // a few rows per flush (one per dimension set): read by name
      const rows = sums.rows.map((row) => ROLLUP_COLUMNS.map((column) => row[column]));
      for (const part of statementChunks(rows)) await run(statements.upsertRollups[i]![part.length]!, part);
    }
    return { written };
  });
}

/**
 * Adds `delta` to a balance or key spend with the spend-per-period columns the batch's charges
 * move: the statement compiled for the kinds charged (see FlushStatements.updateAccount).
 */
function update(run: Run, byKinds: readonly Template[], delta: number, spend: PeriodSpend | undefined, tail: unknown[]): Promise<unknown> {
  const values: unknown[] = [delta];
  let kinds = 0;
  if (spend) {
    BUDGET_PERIODS.forEach((kind, i) => {
      const { start, nano } = spend[kind];
      if (start === 0) return;
      kinds |= 1 << i;
      values.push(start, nano);
    });
  }
  values.push(...tail);
  return run(byKinds[kinds]!, [values]);
}

/** A usage row the database refused, set aside in dead_letters; false when the row has a letter already. */
export async function insertDeadLetter(connection: FlushConnection, statements: FlushStatements, letter: DeadLetter): Promise<boolean> {
  const inserted = await connection.run(statements.insertDeadLetter, [[letter.table, letter.rowKey, letter.error, letter.rowJson, Date.now()]]);
  return inserted.length > 0;
}
