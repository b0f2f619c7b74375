// A charge's usage row goes into the settlement log with the charge (StateSync.enqueue), and the
// pipeline queues the same row again after it answers (recordUsage): the flush thread must get
// the text the log holds, as it was logged, even if the row object changed in between; another
// row is encoded when it is queued.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { newId } from '../../src/core/ids.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import type { Flusher } from '../../src/store/flusher.ts';
import { usageList } from '../../src/store/ledger-rows.ts';
import { encodeUsageRow, type LedgerEntry, type WriteBatch } from '../../src/store/repositories/ledger.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { StateSync, type SettlementJournal, type SyncListener } from '../../src/store/state-sync.ts';

let store: Store;
before(async () => {
  store = await openStore('sqlite::memory:');
});
after(() => store.close());

const listener: SyncListener = { provider: () => undefined, account: () => undefined, apiKey: () => undefined, modelOverride: () => undefined, flushed: () => undefined };

function usageRow(overrides: Partial<NewUsageRow> = {}): NewUsageRow {
  return {
    request_id: newId('req'), created_at: 1_700_000_000_000, account_id: 'acct_logged', key_id: 'key_logged', model: 'gpt-4o-mini', endpoint: '/v1/chat/completions',
    provider_id: 'prov_a', status: 200, prompt_tokens: 34, completion_tokens: 36, cached_tokens: 0, units: 0, cost_nano: 4_500, latency_ms: 51, estimated: 0,
    error_type: null, session_id: null, ...overrides,
  };
}

test('a usage row logged with its charge is queued as the text the settlement log holds; another row is encoded when queued', async () => {
  const batches: WriteBatch[] = [];
  const flusher: Flusher = {
    takesEncodedRows: true,
    flush: async (batch) => {
      batches.push(batch);
      return { written: new Set(batch.entries.map((entry) => entry.entryKey)), deadLettered: [], sanitised: [], stuck: [] };
    },
    close: async () => undefined,
  };
  const logged: Array<string | null> = [];
  const journal: SettlementJournal = { append: (_entry, usage) => logged.push(usage), seal: () => undefined, committed: () => undefined, close: () => undefined };
  const sync = new StateSync(store.db, listener, pino({ level: 'silent' }), 60_000, flusher);
  sync.settlementLog = journal;

  const charged = usageRow();
  const entry: LedgerEntry = { entryKey: newId('e'), accountId: 'acct_logged', keyId: 'key_logged', requestId: charged.request_id, kind: 'charge', amountNano: -4_500, note: null, createdAt: Date.now() };
  sync.enqueue(entry, charged);
  assert.deepEqual(logged, [encodeUsageRow(charged)], 'the log got the row, encoded');
  // changed after it was logged: the database must get what a replay of the log would write
  charged.latency_ms = 999;
  sync.recordUsage(charged);
  const other = usageRow({ status: 499, error_type: 'client_closed' });
  sync.recordUsage(other);
  other.latency_ms = 999;
  assert.deepEqual(Object.keys(charged), Object.keys(usageRow()), 'the row has its columns and nothing more to a reader of its keys');

  await sync.now();
  const usage = batches.flatMap((batch) => usageList(batch.usage));
  assert.deepEqual(usage, [logged[0], encodeUsageRow({ ...other, latency_ms: 51 })]);
});
