// bench/instructions.ts's two views of a callgrind file come from one reader: each function's own
// instructions, and the calls into V8's runtime (each call edge's count and inclusive cost); names
// are defined once and referred to by id after.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runtimeCalls, topFunctions } from '../../bench/callgrind-functions.ts';

const CALLGRIND = `# callgrind format
events: Ir

fn=(1) Builtins_CEntry_Return1_ArgvOnStack_NoBuiltinExit
0 10
cfn=(2) v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral(int, unsigned long*, v8::internal::Isolate*)
calls=3 0
0 3900
cfn=(3) v8::internal::Runtime_DateCurrentTime(int, unsigned long*, v8::internal::Isolate*)
calls=2 0
0 400

fn=(4) 0x0000000028100000
0 50
cfn=(1)
calls=5 0
0 4500
cfn=(2)
calls=1 0
0 1300
+2 7
`;

test('calls into the runtime are summed by function, costliest first, apart from other calls and from own costs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  try {
    const file = join(dir, 'callgrind.out');
    writeFileSync(file, CALLGRIND);
    assert.deepEqual(runtimeCalls(file, 8), [
      { name: 'DefineKeyedOwnPropertyInLiteral', calls: 4, instructions: 5200 },
      { name: 'DateCurrentTime', calls: 2, instructions: 400 },
    ]);
    assert.deepEqual(runtimeCalls(file, 1).map((r) => r.name), ['DefineKeyedOwnPropertyInLiteral']);
    // the same reading's own costs: a call's cost line is never its caller's (no perf map: JIT code keeps its address)
    assert.deepEqual(topFunctions(file, join(dir, 'no-perf.map'), 8), [
      { name: '0x0000000028100000', instructions: 57 },
      { name: 'Builtins_CEntry_Return1_ArgvOnStack_NoBuiltinExit', instructions: 10 },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
