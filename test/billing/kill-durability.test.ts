// A charge is durable before the answer's last byte: a gateway killed with SIGKILL under load,
// right after answers completed and before its write-behind flushed them, is restarted on the
// same database, and every answer a client received in full is charged (journal entry and usage
// row, by the x-request-id the client saw); the balance still equals the journal sum.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { startOpenAISimulator } from '../../simulators/openai/server.ts';
import { addCustomer, addSimProvider, startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-kill-'));
const children: ChildGateway[] = [];
after(async () => {
  for (const child of children) await child.kill9();
  rmSync(dir, { recursive: true, force: true });
});

test('kill -9 under load: every answer a client received in full is charged after the restart', async () => {
  const sim = await startOpenAISimulator({ apiKey: 'sim-upstream-key', latencyMs: 5, streamChunks: 4 });
  try {
    // the default settlement log directory (beside the SQLite file); the longest flush interval, so
    // that the kill always comes before the write-behind wrote the answers (whatever the machine's speed)
    const env = { DATABASE_URL: `sqlite:${join(dir, 'modelgate.db')}`, MODELGATE_MEDIA_DIR: join(dir, 'media'), MODELGATE_SYNC_INTERVAL_MS: '60000' };
    const first = await startChildGateway(env);
    children.push(first);
    await addSimProvider(first, sim.baseUrl);
    const customer = await addCustomer(first, 10);

    const completed: Array<{ id: string; stream: boolean }> = [];
    let killed = false;
    const wanted = 24;
    const call = async (stream: boolean): Promise<void> => {
      const res = await fetch(`${first.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, stream, messages: [{ role: 'user', content: `hello ${completed.length}` }] }),
      });
      const text = await res.text();
      if (killed) return;
      assert.equal(res.status, 200, text);
      if (stream) assert.match(text, /data: \[DONE\]/);
      // the client has the whole answer: it must be charged whatever happens to the gateway now
      completed.push({ id: res.headers.get('x-request-id')!, stream });
      if (completed.length >= wanted && completed.some((c) => c.stream) && completed.some((c) => !c.stream)) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };
    const worker = async (n: number) => {
      for (let i = n; !killed; i++) await call(i % 2 === 0).catch((error: unknown) => assert.ok(killed, String(error)));
    };
    await Promise.all([0, 1, 2, 3, 4, 5].map(worker));
    await first.kill9();
    assert.ok(readdirSync(join(dir, 'settlements')).length > 0, 'the killed process left its settlement log');

    const second = await startChildGateway(env);
    children.push(second);
    // the replay is committed before the gateway listens
    const db = new DatabaseSync(join(dir, 'modelgate.db'), { readOnly: true });
    try {
      const charged = new Set(db.prepare('SELECT request_id FROM ledger WHERE account_id = ? AND kind = ?').all(customer.accountId, 'charge').map((row) => String(row.request_id)));
      const rows = new Set(db.prepare('SELECT request_id FROM usage_log WHERE account_id = ? AND cost_nano > 0').all(customer.accountId).map((row) => String(row.request_id)));
      const unpaid = completed.filter((c) => !charged.has(c.id));
      assert.deepEqual(unpaid, [], `${unpaid.length} of ${completed.length} completed answers were not charged`);
      const unrecorded = completed.filter((c) => !rows.has(c.id));
      assert.deepEqual(unrecorded, [], 'every completed answer has its usage row');
      const journal = Number(db.prepare('SELECT COALESCE(SUM(amount_nano), 0) AS total FROM ledger WHERE account_id = ?').get(customer.accountId)!.total);
      const balance = Number(db.prepare('SELECT balance_nano FROM accounts WHERE id = ?').get(customer.accountId)!.balance_nano);
      assert.equal(balance, journal, 'balance = journal sum');
    } finally {
      db.close();
    }
    const account = await second.admin('GET', `/admin/accounts/${customer.accountId}`);
    assert.equal(account.status, 200);
    assert.equal(await second.stop(), 0);
    assert.deepEqual(readdirSync(join(dir, 'settlements')), [], 'the replayed log and the clean stop leave no file behind');
  } finally {
    await sim.close();
  }
});
