// The write-behind's queue (src/store/queued-writes.ts): for the flush thread, rows wait as JSON
// lines outside V8's heap (LineBuffer); what a flush takes, and what goes back when the database
// could not take it, keeps every row, in order, as the flush will bind it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonLines, LineBuffer, linesOf, type JsonLines } from '../../src/store/json-lines.ts';
import { encodeUsageRow, usageList, type LedgerEntry } from '../../src/store/ledger-rows.ts';
import { QueuedWrites } from '../../src/store/queued-writes.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';

const entry = (n: number): LedgerEntry => ({ entryKey: `charge:req_${n}`, accountId: 'acct_q', keyId: 'key_q', requestId: `req_${n}`, kind: 'charge', amountNano: -1_000 - n, note: n % 2 ? null : `note ${n} "é" 🙂\n`, createdAt: 1_700_000_000_000 + n });
const usage = (n: number): NewUsageRow => ({
  request_id: `req_${n}`, created_at: 1_700_000_000_000 + n, account_id: 'acct_q', key_id: 'key_q', model: `model-${n} ✓`, endpoint: '/v1/chat/completions', provider_id: null,
  status: 200, prompt_tokens: n, completion_tokens: n + 1, cached_tokens: 0, units: 0, cost_nano: n, latency_ms: 5, estimated: 0, error_type: null, session_id: null,
});
const entryLines = (batch: ReturnType<QueuedWrites['take']>) => linesOf(batch.encodedEntries!).map((line) => JSON.parse(line) as LedgerEntry);

test('encoded: entries with their JSON and usage rows as their texts, taken whole; the queue starts again empty', () => {
  const queue = new QueuedWrites(true);
  for (let n = 1; n <= 300; n++) {
    queue.addEntry(entry(n), n % 3 ? JSON.stringify(entry(n)) : undefined);
    // a row queued as an object is encoded as the flush thread binds it
    queue.addUsage(usage(n), n % 2 ? encodeUsageRow(usage(n)) : undefined);
  }
  assert.equal(queue.rows, 600);
  const batch = queue.take();
  assert.equal(queue.rows, 0);
  assert.deepEqual(batch.entries, Array.from({ length: 300 }, (_, i) => entry(i + 1)));
  assert.deepEqual(entryLines(batch), batch.entries);
  assert.deepEqual(usageList(batch.usage), Array.from({ length: 300 }, (_, i) => encodeUsageRow(usage(i + 1))));
  const empty = queue.take();
  assert.deepEqual([empty.entries, empty.encodedEntries?.count, usageList(empty.usage)], [[], 0, []]);
});

test('a batch put back goes ahead of what was queued since; entries to retry go first', () => {
  const queue = new QueuedWrites(true);
  queue.addEntry(entry(1), undefined);
  queue.addUsage(usage(1), undefined);
  const first = queue.take();
  queue.addEntry(entry(2), undefined);
  queue.addUsage(usage(2), undefined);
  queue.putBack(first);
  queue.putBackEntries([entry(0)]);
  const again = queue.take();
  assert.deepEqual(again.entries.map((e) => e.entryKey), ['charge:req_0', 'charge:req_1', 'charge:req_2']);
  assert.deepEqual(entryLines(again), again.entries);
  assert.deepEqual(usageList(again.usage), [encodeUsageRow(usage(1)), encodeUsageRow(usage(2))]);
  // put back into an empty queue
  queue.putBack(again);
  assert.deepEqual(entryLines(queue.take()), again.entries);
});

test('not encoded: rows stay the objects queued, and go back in order', () => {
  const queue = new QueuedWrites(false);
  queue.addEntry(entry(1), undefined);
  queue.addUsage(usage(1), undefined);
  const first = queue.take();
  assert.equal(first.encodedEntries, undefined);
  queue.addUsage(usage(2), undefined);
  queue.putBack(first);
  assert.deepEqual(queue.take(), { entries: [entry(1)], usage: [usage(1), usage(2)] });
});

test('a LineBuffer grows past its first capacity and keeps every byte of multi-byte text', () => {
  const buffer = new LineBuffer(16);
  const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ i, text: '🙂é'.repeat(i % 7) + 'x'.repeat(i % 50) }));
  for (const line of lines) buffer.push(line);
  const taken = buffer.take();
  assert.equal(taken.count, 500);
  assert.deepEqual(linesOf(taken), lines);
  assert.deepEqual(Buffer.from(taken.bytes), Buffer.from(jsonLines(lines).bytes));
  assert.equal(buffer.count, 0);
});

test('the bytes of a batch stay as taken until it is done; then its buffer is written into again', () => {
  const queue = new QueuedWrites(true);
  const fill = (from: number) => {
    for (let n = from; n < from + 50; n++) {
      queue.addEntry(entry(n), undefined);
      queue.addUsage(usage(n), undefined);
    }
  };
  const usageBytes = (batch: ReturnType<QueuedWrites['take']>) => (batch.usage as JsonLines).bytes;
  // as the state sync runs it: a flush takes, rows keep being queued, the flush ends
  fill(0);
  const first = queue.take();
  const firstText = Buffer.from(usageBytes(first)).toString();
  fill(50);
  assert.equal(Buffer.from(usageBytes(first)).toString(), firstText, 'not done: nothing writes into it');
  queue.done(first);
  const second = queue.take();
  fill(100);
  queue.done(second);
  const third = queue.take();
  assert.ok(usageBytes(third).buffer === usageBytes(first).buffer, 'two buffers take turns');
  assert.ok(usageBytes(second).buffer !== usageBytes(first).buffer);
  assert.deepEqual(usageList(second.usage), Array.from({ length: 50 }, (_, i) => encodeUsageRow(usage(50 + i))));
  assert.deepEqual(usageList(third.usage), Array.from({ length: 50 }, (_, i) => encodeUsageRow(usage(100 + i))));
});
