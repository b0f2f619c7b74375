// V8's minor GC task is off in the gateway's process unless node was told otherwise.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const moduleUrl = new URL('../../src/core/minor-gc-task.ts', import.meta.url).href;

/**
 * A fresh node with --trace-gc and 1-MB semi-spaces allocating across turns of the event loop,
 * where V8 runs the scavenges it posts as tasks. Returns what turnOffMinorGcTask() said (null: not
 * called) and how many scavenges ran from a task and from a full young generation.
 */
function scavenges(call: boolean, nodeArgs: string[] = []): { turnedOff: boolean | null; fromTask: number; whenFull: number } {
  const script = `
    import { turnOffMinorGcTask } from ${JSON.stringify(moduleUrl)};
    const turnedOff = ${call ? 'turnOffMinorGcTask()' : 'null'};
    let kept = [];
    let turns = 0;
    const turn = () => {
      for (let i = 0; i < 2_000; i++) {
        kept.push({ i, text: 'row ' + i });
        if (kept.length > 5_000) kept = [];
      }
      if (++turns < 1_000) setImmediate(turn);
      else console.log(JSON.stringify({ turnedOff }));
    };
    turn();`;
  const out = execFileSync(process.execPath, ['--trace-gc', '--max-semi-space-size=1', ...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  const lines = out.trim().split('\n');
  // the script's own line: V8 may print a collection after it
  const { turnedOff } = JSON.parse(lines.find((line) => line.startsWith('{'))!) as { turnedOff: boolean | null };
  const scavengeLines = lines.filter((line) => line.includes('Scavenge'));
  return { turnedOff, fromTask: scavengeLines.filter((line) => / task;/.test(line)).length, whenFull: scavengeLines.filter((line) => /allocation failure/.test(line)).length };
}

test('V8 scavenges from a task before the young generation is full, unless turned off', { timeout: 30_000 }, () => {
  const untouched = scavenges(false);
  assert.ok(untouched.fromTask > 0, 'V8 posts the task by default (the check below could not fail otherwise)');
  const off = scavenges(true);
  assert.equal(off.turnedOff, true);
  assert.equal(off.fromTask, 0, 'no scavenge ran from a task');
  assert.ok(off.whenFull > 0, 'the young generation is collected when full');
  assert.ok(off.whenFull < untouched.fromTask + untouched.whenFull, `fewer scavenges for the same allocation: ${off.whenFull} against ${untouched.fromTask + untouched.whenFull}`);
});

test('a minor-gc-task flag given to node holds', { timeout: 30_000 }, () => {
  const kept = scavenges(true, ['--minor-gc-task']);
  assert.equal(kept.turnedOff, false);
  assert.ok(kept.fromTask > 0);
});
