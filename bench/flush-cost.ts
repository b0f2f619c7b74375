// What the write-behind's flush costs a request, by statement (issue 21: the flush thread took
// ~25 µs a request at 50 ms against the floor's ~7). The gateway's own flush (writeBatch over the
// statements the main thread compiles, on a node:sqlite connection of its own, as the flush thread
// runs it) on an SQLite file migrated as the gateway migrates it, fed batches shaped as a loaded
// gateway queues them: per request one charge and one usage row (encoded), four keys touched.
// No HTTP, no thread hop: the figures are the flush's alone, on this thread.
//
//   node bench/flush-cost.ts     FLUSH_ROWS requests a batch (default 300: ~64 connections at 50 ms
//                                over a 250-ms cycle), FLUSH_BATCHES (default 200; the first 10 warm up)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/database.ts';
import { writeBatch } from '../src/store/flush-batch.ts';
import type { FlushConnection, InsertFresh, Run, Template } from '../src/store/flush-sql.ts';
import { compileFlushStatements } from '../src/store/flush-statements.ts';
import { jsonLines, parsedChunks } from '../src/store/json-lines.ts';
import { encodeUsageRow, type LedgerEntry, type UsageValues } from '../src/store/ledger-rows.ts';
import { accountsRepository } from '../src/store/repositories/accounts.ts';
import { openSqliteFile } from '../src/store/sqlite-file.ts';
import { sqliteFlushConnection } from '../src/store/sqlite-flush-connection.ts';

const ROWS = Number(process.env.FLUSH_ROWS ?? 300);
const BATCHES = Number(process.env.FLUSH_BATCHES ?? 200);
const WARM_UP = 10;

const dir = mkdtempSync(join(tmpdir(), 'modelgate-flush-cost-'));
const path = join(dir, 'gateway.sqlite');
const store = await openStore(`sqlite://${path}`);
try {
  const account = await accountsRepository(store.db).insert({ id: 'acct_flush_cost', name: 'flush cost', email: null });
  const statements = await compileFlushStatements(store.db, async () => undefined);

  // each statement's time, by the start of its SQL, once the warm-up is over
  const byStatement = new Map<string, number>();
  let measuring = false;
  let bodyNs = 0;
  const own = sqliteFlushConnection(openSqliteFile(path));
  const timedBy = <R>(sql: string, started: bigint, result: R): R => {
    if (measuring) {
      const name = /^(insert into|update) "?(\w+)"?/i.exec(sql)?.slice(1).join(' ') ?? sql.slice(0, 30);
      byStatement.set(name, (byStatement.get(name) ?? 0) + Number(process.hrtime.bigint() - started));
    }
    return result;
  };
  const timed = (run: Run): Run => async <Row extends unknown[]>(template: Template, rows: readonly (readonly unknown[])[]) => {
    const started = process.hrtime.bigint();
    return timedBy(template.sql, started, await run<Row>(template, rows));
  };
  const timedFresh = (insertFresh: InsertFresh): InsertFresh => async (insert, rows) => {
    const started = process.hrtime.bigint();
    return timedBy(insert.quiet[rows.length]!.sql, started, await insertFresh(insert, rows));
  };
  const connection: FlushConnection = {
    run: timed(own.run),
    transaction: (body) =>
      own.transaction(async (run, insertFresh) => {
        const started = process.hrtime.bigint();
        const result = await body(timed(run), timedFresh(insertFresh));
        if (measuring) bodyNs += Number(process.hrtime.bigint() - started);
        return result;
      }),
  };

  let next = 0;
  const batchOf = () => {
    const now = Date.now();
    const entries: LedgerEntry[] = [];
    const usage: string[] = [];
    for (let i = 0; i < ROWS; i++) {
      const requestId = `req_${now.toString(16).padStart(12, '0')}${(next++).toString(16).padStart(20, '0')}`;
      const keyId = `key_flush_cost_${i % 4}`;
      entries.push({ entryKey: `charge:${requestId}`, accountId: account.id, keyId, requestId, kind: 'charge', amountNano: -4_500, note: null, createdAt: now });
      usage.push(encodeUsageRow({
        request_id: requestId, created_at: now, account_id: account.id, key_id: keyId, model: 'gpt-4o-mini', endpoint: '/v1/chat/completions', provider_id: 'prov_sim',
        status: 200, prompt_tokens: 34, completion_tokens: 36, cached_tokens: 0, units: 0, cost_nano: 4_500, latency_ms: 51, estimated: 0, error_type: null, session_id: null,
      }));
    }
    // the rows as the flush thread receives them: JSON lines (WorkerFlusher)
    return { entries: jsonLines(entries.map((entry) => JSON.stringify(entry))), usage: jsonLines(usage), touches: [0, 1, 2, 3].map((k) => ({ keyId: `key_flush_cost_${k}`, lastUsedAt: now })) };
  };
  const batches = Array.from({ length: BATCHES }, batchOf);

  let cpu = process.cpuUsage();
  let wall = process.hrtime.bigint();
  for (const [i, batch] of batches.entries()) {
    if (i === WARM_UP) {
      measuring = true;
      cpu = process.cpuUsage();
      wall = process.hrtime.bigint();
    }
    await writeBatch(connection, statements, { entries: parsedChunks<LedgerEntry>(batch.entries), usage: parsedChunks<UsageValues>(batch.usage), touches: batch.touches });
  }
  const used = process.cpuUsage(cpu);
  const requests = (BATCHES - WARM_UP) * ROWS;
  const perRequest = (ns: number) => (ns / 1000 / requests).toFixed(2).padStart(6);
  console.log(`flush of ${BATCHES - WARM_UP} batches of ${ROWS} requests (a charge and a usage row each), µs a request:\n`);
  console.log('| part | µs a request |\n|---|--:|');
  console.log(`| CPU, all of it (user + system) | ${perRequest((used.user + used.system) * 1000)} |`);
  console.log(`| wall time, all of it (parse, transaction, commit) | ${perRequest(Number(process.hrtime.bigint() - wall))} |`);
  console.log(`| the transaction's body | ${perRequest(bodyNs)} |`);
  for (const [name, ns] of [...byStatement].sort((a, b) => b[1] - a[1])) console.log(`| · ${name} | ${perRequest(ns)} |`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
