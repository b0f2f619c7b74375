// The gateway's threads as it runs them (issue 21): V8's garbage-collection and compiler pool and
// the SQLite flush thread yield the core to the event loop, whose own priority is untouched.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BACKGROUND_NICE } from '../src/core/thread-priority.ts';
import { startChildGateway } from './helpers/child-gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-threads-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** name and nice value of each thread of a process (Linux /proc) */
function threadsOf(pid: number): Array<{ tid: number; name: string; nice: number }> {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // fields after the name: state is field 3, nice field 19
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { tid: Number(tid), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice: Number(fields[16]) };
  });
}

test('V8 pool threads and the flush thread run at a lower priority than the event loop', { skip: process.platform !== 'linux' && 'thread priorities are read from Linux /proc' }, async (t) => {
  const gateway = await startChildGateway({ DATABASE_URL: `sqlite:${join(dir, 'modelgate.db')}` });
  t.after(() => gateway.kill9());
  const threads = threadsOf(gateway.child.pid!);
  const pool = threads.filter((thread) => thread.name === 'V8Worker');
  assert.ok(pool.length > 0, `no V8Worker thread among ${threads.map((x) => x.name).join(', ')}`);
  for (const thread of pool) assert.equal(thread.nice, BACKGROUND_NICE, `V8Worker ${thread.tid}`);
  const main = threads.find((thread) => thread.tid === gateway.child.pid);
  assert.equal(main?.nice, 0, 'the event loop keeps the normal priority');
  // a credit is written before it is answered: the first flush starts the flush thread
  const account = await gateway.admin('POST', '/admin/accounts', { name: 'threads' });
  assert.equal(account.status, 201);
  const credit = await gateway.admin('POST', `/admin/accounts/${account.body.id}/credit`, { amount_usd: 1 });
  assert.equal(credit.status, 200, JSON.stringify(credit.body));
  const flush = threadsOf(gateway.child.pid!).filter((thread) => thread.name === 'WorkerThread');
  assert.equal(flush.length, 1, 'one worker thread: the flush thread');
  assert.equal(flush[0]!.nice, BACKGROUND_NICE, 'the flush thread');
});
