// Graceful shutdown: journal and usage rows still queued in memory are flushed before the
// database closes, a stream in flight is answered to its end, and a new gateway on the same
// SQLite file sees every charge and no reservation.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-shutdown-'));
const databaseUrl = `sqlite:${join(dir, 'gateway.db')}`;
const opened: TestGateway[] = [];

after(async () => {
  for (const tg of opened) await tg.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

test('charges queued at shutdown are durable and visible to the next gateway on the same file', async () => {
  // a sync interval far longer than the test: only an explicit flush (or the shutdown) writes
  const first = await startTestGateway({
    databaseUrl,
    env: { MODELGATE_SYNC_INTERVAL_MS: '60000' },
    simulator: { chunkDelayMs: 15, streamChunks: 20 },
  });
  opened.push(first);
  const customer = await first.customer(1); // the admin API flushes the credit itself
  const client = new OpenAI({ apiKey: customer.key, baseURL: first.baseURL, maxRetries: 0 });

  let expected = 0;
  for (let i = 0; i < 3; i++) {
    const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `before shutdown ${i}` }] });
    expected += reply.usage!.prompt_tokens * 150 + reply.usage!.completion_tokens * 600;
  }
  assert.ok(first.gateway.sync.pendingWrites >= 3, 'the charges are still only in memory');
  assert.equal(first.balanceNano(customer.accountId), 1e9 - expected);

  // a stream in flight when shutdown starts is answered to its end
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'streaming through shutdown' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const iterator = stream[Symbol.asyncIterator]();
  const firstChunk = await iterator.next();
  assert.equal(firstChunk.done, false);
  const closing = first.close();
  opened.splice(opened.indexOf(first), 1);
  let usage: OpenAI.CompletionUsage | undefined;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) if (next.value.usage) usage = next.value.usage;
  assert.ok(usage, 'the stream completed with its usage chunk');
  expected += usage.prompt_tokens * 150 + usage.completion_tokens * 600;
  await closing;

  const second = await startTestGateway({ databaseUrl, simulator: false });
  opened.push(second);
  assert.equal(second.balanceNano(customer.accountId), 1e9 - expected, 'no charge was lost');
  assert.equal(second.gateway.ledger.openReservations, 0, 'reservations do not survive a restart');
  await second.assertBillingInvariants(customer.accountId);
  const journal = await second.admin('GET', `/admin/accounts/${customer.accountId}/ledger`);
  assert.equal(journal.body.data.filter((r: { kind: string }) => r.kind === 'charge').length, 4);
  const usage2 = await second.admin('GET', `/admin/usage?account_id=${customer.accountId}`);
  assert.equal(usage2.body.data.length, 4, 'the usage rows were flushed too');
  assert.ok(usage2.body.data.every((r: { status: number }) => r.status === 200));
});
