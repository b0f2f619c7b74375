// V8's allocation-site pretenuring is off in the gateway's process unless node was told otherwise.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const moduleUrl = new URL('../../src/core/pretenuring.ts', import.meta.url).href;

/**
 * A fresh node with --trace-pretenuring-statistics: a literal's objects all survive their first
 * scavenge, which V8 pretenures when it may. Returns what turnOffAllocationSitePretenuring() said
 * (null: not called) and how many pretenuring lines V8 printed.
 */
function pretenuringLines(call: boolean, nodeArgs: string[] = []): { turnedOff: boolean | null; lines: number } {
  const script = `
    import { turnOffAllocationSitePretenuring } from ${JSON.stringify(moduleUrl)};
    const turnedOff = ${call ? 'turnOffAllocationSitePretenuring()' : 'null'};
    const kept = [];
    for (let i = 0; i < 1_000_000; i++) {
      kept.push({ i, inner: { i } });
      if (kept.length > 200_000) kept.length = 0;
    }
    console.log(JSON.stringify({ turnedOff }));`;
  const out = execFileSync(process.execPath, ['--trace-pretenuring-statistics', ...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  const lines = out.trim().split('\n');
  const { turnedOff } = JSON.parse(lines.at(-1)!) as { turnedOff: boolean | null };
  return { turnedOff, lines: lines.filter((line) => line.includes('pretenuring:')).length };
}

test('V8 pretenures a literal whose objects survive, unless turned off', { timeout: 30_000 }, () => {
  const untouched = pretenuringLines(false);
  assert.ok(untouched.lines > 0, 'V8 weighs the sites by default (the check below could not fail otherwise)');
  const off = pretenuringLines(true);
  assert.equal(off.turnedOff, true);
  assert.equal(off.lines, 0, 'no site weighed or pretenured');
});

test('an allocation-site-pretenuring flag given to node holds', { timeout: 30_000 }, () => {
  const kept = pretenuringLines(true, ['--allocation-site-pretenuring']);
  assert.equal(kept.turnedOff, false);
  assert.ok(kept.lines > 0);
});
