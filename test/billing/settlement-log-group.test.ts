// The settlement log's grouped appends (the charges of HTTP answers): written together at the end
// of the event-loop turn, before the promise their answers wait on settles; in order with the
// appends written in place; inside the segment a flush seals; a failed write reported, never thrown.
// An answer alone in its turn (long after the previous one, no group waiting) is written at once.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SettlementLog } from '../../src/billing/settlement-log.ts';

const root = mkdtempSync(join(tmpdir(), 'modelgate-settlement-group-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, String(++dirs));

const entry = (id: string) => ({ entryKey: `charge:${id}`, accountId: 'acct_1', keyId: null, requestId: id, kind: 'charge' as const, amountNano: -42, note: null, createdAt: 1 });

/** the request ids of the lines in `dir`'s segments, segment by segment in name order */
function logged(dir: string): string[][] {
  return readdirSync(dir)
    .sort()
    .map((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as { e: { requestId: string } }).e.requestId),
    );
}
const all = (dir: string) => logged(dir).flat();

/** a log whose answers always count as close together: every grouped append waits for the turn's end */
const busyLog = (dir: string, options: { onGroupError?: (error: unknown) => void } = {}) => new SettlementLog(dir, 'sqlite:/db/one.db', { ...options, aloneAfterMs: Number.POSITIVE_INFINITY });

/** a log on a clock the test sets (ms), answers 0.25 ms or less apart grouped */
function clockedLog(dir: string, options: { onGroupError?: (error: unknown) => void } = {}) {
  const clock = { ms: 1000 };
  const log = new SettlementLog(dir, 'sqlite:/db/one.db', { ...options, aloneAfterMs: 0.25, now: () => clock.ms });
  return { log, clock };
}

test('the appends of one turn are written together, before the promise their answers wait on settles', async () => {
  const dir = freshDir();
  const log = busyLog(dir);
  const first = log.grouped(() => log.append(entry('req_1'), null));
  const second = log.grouped(() => log.append(entry('req_2'), '["req_2"]'));
  assert.ok(first instanceof Promise);
  assert.equal(second, first, 'one write for the turn: one promise');
  assert.deepEqual(all(dir), [], 'nothing written while the turn runs');
  await first;
  assert.deepEqual(all(dir), ['req_1', 'req_2']);
  assert.equal(log.grouped(() => undefined), undefined, 'nothing appended: nothing to wait for');
  log.close();
});

test('an append written in place writes the waiting group first, in order', async () => {
  const dir = freshDir();
  const log = busyLog(dir);
  const group = log.grouped(() => log.append(entry('req_grouped'), null));
  log.append(entry('req_in_place'), null);
  assert.deepEqual(all(dir), ['req_grouped', 'req_in_place']);
  await group;
  assert.deepEqual(all(dir), ['req_grouped', 'req_in_place'], 'nothing written twice');
  log.close();
});

test('a batch taken mid-turn seals the waiting lines into its segment; the turn after writes a new one', async () => {
  const dir = freshDir();
  const log = busyLog(dir);
  const sealedGroup = log.grouped(() => log.append(entry('req_before_seal'), null));
  log.seal();
  const nextGroup = log.grouped(() => log.append(entry('req_after_seal'), null));
  assert.notEqual(nextGroup, sealedGroup);
  await Promise.all([sealedGroup, nextGroup]);
  assert.deepEqual(logged(dir), [['req_before_seal'], ['req_after_seal']]);
  log.committed();
  assert.deepEqual(logged(dir), [['req_after_seal']], 'the committed batch took its segment with it');
  log.close();
});

test('a grouped write that fails is reported and its answers still go out', async () => {
  const dir = freshDir();
  const errors: unknown[] = [];
  const log = busyLog(dir, { onGroupError: (error) => errors.push(error) });
  // the segment is opened at the first write: its directory is gone by then
  rmSync(dir, { recursive: true });
  await log.grouped(() => log.append(entry('req_lost'), null));
  assert.equal(errors.length, 1);
  assert.equal((errors[0] as NodeJS.ErrnoException).code, 'ENOENT');
});

test('an answer alone in its turn is written at once, with nothing to wait for', () => {
  const dir = freshDir();
  const { log } = clockedLog(dir);
  assert.equal(log.grouped(() => log.append(entry('req_alone'), null)), undefined);
  assert.deepEqual(all(dir), ['req_alone'], 'written before grouped returned');
  log.close();
});

test('answers close together are grouped: the first alone, the ones within the gap in one write at the end of the turn', async () => {
  const dir = freshDir();
  const { log, clock } = clockedLog(dir);
  assert.equal(log.grouped(() => log.append(entry('req_1'), null)), undefined);
  clock.ms += 0.1;
  const second = log.grouped(() => log.append(entry('req_2'), null));
  clock.ms += 0.25;
  const third = log.grouped(() => log.append(entry('req_3'), null));
  assert.ok(second instanceof Promise);
  assert.equal(third, second, '0.25 ms after the second: still close, the same group');
  assert.deepEqual(all(dir), ['req_1']);
  await second;
  assert.deepEqual(all(dir), ['req_1', 'req_2', 'req_3']);
  clock.ms += 0.26;
  assert.equal(log.grouped(() => log.append(entry('req_4'), null)), undefined, 'more than 0.25 ms after the last: alone again');
  assert.deepEqual(all(dir), ['req_1', 'req_2', 'req_3', 'req_4']);
  log.close();
});

test('a group waiting takes the next answer in, however long after: lines stay in order', async () => {
  const dir = freshDir();
  const { log, clock } = clockedLog(dir);
  log.grouped(() => log.append(entry('req_1'), null));
  clock.ms += 0.1;
  const group = log.grouped(() => log.append(entry('req_2'), null));
  clock.ms += 50;
  assert.equal(log.grouped(() => log.append(entry('req_3'), null)), group);
  assert.deepEqual(all(dir), ['req_1']);
  await group;
  assert.deepEqual(all(dir), ['req_1', 'req_2', 'req_3']);
  log.close();
});

test('a write of an answer alone that fails is reported, not thrown, and its answer goes out', () => {
  const dir = freshDir();
  const errors: unknown[] = [];
  const { log } = clockedLog(dir, { onGroupError: (error) => errors.push(error) });
  rmSync(dir, { recursive: true });
  assert.equal(log.grouped(() => log.append(entry('req_lost'), null)), undefined);
  assert.equal(errors.length, 1);
  assert.equal((errors[0] as NodeJS.ErrnoException).code, 'ENOENT');
});
