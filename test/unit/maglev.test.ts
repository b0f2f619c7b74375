// V8's Maglev compiler is off in the gateway's process unless node was told otherwise.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const moduleUrl = new URL('../../src/core/maglev.ts', import.meta.url).href;

/**
 * A fresh node with --trace-opt running a hot function after turnOffMaglev() (or without the
 * call): what the function was compiled by, and what turnOffMaglev() said (null: not called).
 */
function tiers(call: boolean, nodeArgs: string[] = []): { turnedOff: boolean | null; maglev: boolean; turbofan: boolean } {
  const script = `
    import { turnOffMaglev } from ${JSON.stringify(moduleUrl)};
    const turnedOff = ${call ? 'turnOffMaglev()' : 'null'};
    function hotLoop(n) { let sum = 0; for (let i = 0; i < n; i++) sum += i * 2; return sum; }
    let total = 0;
    for (let i = 0; i < 200_000; i++) total += hotLoop(3);
    console.log(JSON.stringify({ turnedOff, total }));`;
  const out = execFileSync(process.execPath, ['--trace-opt', ...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  const lines = out.trim().split('\n');
  const { turnedOff } = JSON.parse(lines.find((line) => line.startsWith('{'))!) as { turnedOff: boolean | null };
  const marked = lines.filter((line) => line.startsWith('[marking') && line.includes('JSFunction hotLoop'));
  return { turnedOff, maglev: marked.some((line) => line.includes('to MAGLEV')), turbofan: marked.some((line) => line.includes('to TURBOFAN')) };
}

test('a hot function is compiled by Maglev by default, by TurboFan alone once turned off', { timeout: 30_000 }, () => {
  const untouched = tiers(false);
  assert.equal(untouched.maglev, true, 'Maglev compiles it by default (the check below could not fail otherwise)');
  const off = tiers(true);
  assert.equal(off.turnedOff, true);
  assert.equal(off.maglev, false, 'no Maglev compile after turnOffMaglev()');
  assert.equal(off.turbofan, true, 'the function still reaches TurboFan');
});

test('a maglev flag given to node holds', { timeout: 30_000 }, () => {
  const kept = tiers(true, ['--maglev']);
  assert.equal(kept.turnedOff, false);
  assert.equal(kept.maglev, true);
});
