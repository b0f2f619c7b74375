import type { Kysely } from 'kysely';
import { rowsOfBatch, writeBatch } from '../flush-batch.ts';
import type { FlushStatements } from '../flush-sql.ts';
import { compileFlushStatements, kyselyFlushConnection } from '../flush-statements.ts';
import type { FlushResult, WriteBatch } from '../ledger-rows.ts';
import type { Database, LedgerRow } from '../schema.ts';

export { encodeUsageRow, usageRowOf, type FlushResult, type KeyTouch, type LedgerEntry, type QueuedUsageRow, type WriteBatch } from '../ledger-rows.ts';

export function ledgerRepository(db: Kysely<Database>) {
  // compiled at the first flush: most repositories never flush (reads of the console and the admin API)
  let statements: Promise<FlushStatements> | undefined;
  const connection = kyselyFlushConnection(db);
  return {
    /**
     * Writes one batch in one transaction (src/store/flush-batch.ts): journal rows, the account
     * balances and key spend they change, usage rows and key last-use times. Balance = journal
     * sum holds after every commit.
     */
    async flush(batch: WriteBatch): Promise<FlushResult> {
      statements ??= compileFlushStatements(db);
      return writeBatch(connection, await statements, rowsOfBatch(batch));
    },

    async listByAccount(accountId: string, limit: number, beforeId?: number): Promise<LedgerRow[]> {
      let q = db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').limit(limit);
      if (beforeId !== undefined) q = q.where('id', '<', beforeId);
      return q.execute();
    },

    async sumByAccount(accountId: string): Promise<number> {
      const row = await db
        .selectFrom('ledger')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_nano'), eb.lit(0)).as('total'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(row.total);
    },
  };
}

export type LedgerRepository = ReturnType<typeof ledgerRepository>;
