// Which V8 flags node was given: a setting the gateway makes for itself stands back for them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeArgs, nodeWasGiven } from '../../src/core/node-flags.ts';

test('node’s arguments, then NODE_OPTIONS’, without empty ones', () => {
  assert.deepEqual(nodeArgs(['--a'], '  --b   --c=1 '), ['--a', '--b', '--c=1']);
  assert.deepEqual(nodeArgs([], ''), []);
});

test('a flag given in either sense and spelling, not one that merely starts alike', () => {
  assert.equal(nodeWasGiven('heap-growing-percent', ['--heap-growing-percent=30']), true);
  assert.equal(nodeWasGiven('heap-growing-percent', ['--heap_growing_percent=30']), true);
  assert.equal(nodeWasGiven('allocation-site-pretenuring', ['--no-allocation-site-pretenuring']), true);
  assert.equal(nodeWasGiven('allocation-site-pretenuring', ['--allocation_site_pretenuring']), true);
  assert.equal(nodeWasGiven('allocation-site-pretenuring', ['--allocation-site-pretenuring-extra']), false);
  assert.equal(nodeWasGiven('heap-growing-percent', ['--max-semi-space-size=8']), false);
  assert.equal(nodeWasGiven('heap-growing-percent', nodeArgs([], '--heap-growing-percent=50')), true);
});
