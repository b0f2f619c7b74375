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

const WRITER = `
import { SettlementLog } from ${JSON.stringify(new URL('../../src/billing/settlement-log.ts', import.meta.url).href)};
const log = new SettlementLog(process.argv[1], 'sqlite:/db/one.db');
log.append({ entryKey: 'charge:req_child', accountId: 'acct_1', keyId: null, requestId: 'req_child', kind: 'charge', amountNano: -42, note: null, createdAt: 1 }, null);
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
    orphans[0]!.settlements.map((s) => [s.entry.entryKey, s.entry.amountNano]),
    [['charge:req_child', -42]],
  );
  orphans[0]!.discard();
  assert.deepEqual(readdirSync(dir), [], 'nothing left once discarded (this process has logged nothing yet)');
  mine.close();
  other.close();
});
