// The settlement log tells a dead owner's file from a live one: a process that logged a charge
// and still runs is left alone; once it is killed, its file is replayed (and only for the
// database it was written for), and discarding it leaves nothing behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import { SettlementLog } from '../../src/billing/settlement-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-settlement-log-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const log = pino({ level: 'silent' });

/** a usage row whose every value differs from the others (a value read into the wrong column shows) */
const usageRow = (requestId: string, n: number) => ({
  request_id: requestId, created_at: n + 1, account_id: 'acct_1', key_id: `key_${n}`, model: `model "${n}" é`, endpoint: '/v1/chat/completions', provider_id: null,
  status: 200 + n, prompt_tokens: n + 2, completion_tokens: n + 3, cached_tokens: n + 4, units: n + 0.5, cost_nano: n + 5, latency_ms: n + 6, estimated: 1, error_type: null, session_id: `sess_${n}`,
});

// a charge without a usage row, one with (kept as its values), and one line as logs written
// before 2026-11-28 kept the usage row (a whole object): a replay after an upgrade reads both
const WRITER = `
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SettlementLog } from ${JSON.stringify(new URL('../../src/billing/settlement-log.ts', import.meta.url).href)};
import { encodeUsageRow } from ${JSON.stringify(new URL('../../src/store/ledger-rows.ts', import.meta.url).href)};
const dir = process.argv[1];
const log = new SettlementLog(dir, 'sqlite:/db/one.db');
const entry = (id) => ({ entryKey: 'charge:' + id, accountId: 'acct_1', keyId: null, requestId: id, kind: 'charge', amountNano: -42, note: null, createdAt: 1 });
log.append(entry('req_child'), null);
log.append(entry('req_values'), encodeUsageRow(${JSON.stringify(usageRow('req_values', 10))}));
const file = readdirSync(dir).find((name) => name.includes('_' + process.pid + '_'));
appendFileSync(join(dir, file), JSON.stringify({ e: entry('req_object'), u: ${JSON.stringify(usageRow('req_object', 20))} }) + '\\n');
process.stdout.write('logged\\n');
setInterval(() => {}, 1000);
`;

test("a live process's log is left alone; once it is killed, its log is replayed for its own database only", async (t) => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('logged') && resolve());
    child.once('exit', (code) => reject(new Error(`writer exited (${code})`)));
  });
  const mine = new SettlementLog(dir, 'sqlite:/db/one.db');
  assert.deepEqual(mine.orphans(log), [], 'the writer still runs: its log is its own');

  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const other = new SettlementLog(dir, 'sqlite:/db/two.db');
  assert.deepEqual(other.orphans(log), [], "another database's log is not replayed here");
  const orphans = mine.orphans(log);
  assert.equal(orphans.length, 1);
  assert.deepEqual(
    orphans[0]!.settlements.map((s) => [s.entry.entryKey, s.entry.amountNano, s.usage]),
    [
      ['charge:req_child', -42, null],
      ['charge:req_values', -42, usageRow('req_values', 10)],
      ['charge:req_object', -42, usageRow('req_object', 20)],
    ],
  );
  orphans[0]!.discard();
  assert.deepEqual(readdirSync(dir), [], 'nothing left once discarded (this process has logged nothing yet)');
  mine.close();
  other.close();
});
