// The old generation's room: V8's heap growing percent follows what each full GC kept.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { growingPercentFor, OLD_GENERATION_ROOM } from '../../src/core/heap-growth.ts';

const MB = 1024 * 1024;
const moduleUrl = new URL('../../src/core/heap-growth.ts', import.meta.url).href;

test('the room is what was kept or OLD_GENERATION_ROOM, whichever is more, at most 3×', () => {
  assert.equal(OLD_GENERATION_ROOM, 48 * MB);
  assert.equal(growingPercentFor(24 * MB), 200, '24 MB kept: 48 MB of room, ×3');
  assert.equal(growingPercentFor(32 * MB), 150);
  assert.equal(growingPercentFor(48 * MB), 100, 'V8 factor 2 from here on');
  assert.equal(growingPercentFor(200 * MB), 100);
  assert.equal(growingPercentFor(10 * MB), 200, 'capped: a small heap grows by 3× at most');
  assert.equal(growingPercentFor(0), 200);
  assert.equal(growingPercentFor(30 * MB, 45 * MB), 150, 'another room');
});

/** runs `body` in a fresh node with --expose-gc after holdOldGenerationRoom(32 MB); prints its JSON */
function inChild(body: string, nodeArgs: string[] = []): Record<string, unknown> {
  const script = `
    import { holdOldGenerationRoom } from ${JSON.stringify(moduleUrl)};
    const room = holdOldGenerationRoom(32 * 1024 * 1024);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    ${body}`;
  const out = execFileSync(process.execPath, ['--expose-gc', ...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

test('after each full GC the percent follows what it kept', { timeout: 30_000 }, () => {
  const result = inChild(`
    let kept = Array.from({ length: 500_000 }, (_, i) => ({ i, text: 'row ' + i }));
    globalThis.gc();
    await settle();
    const withMuch = room.percent;
    kept = null;
    globalThis.gc();
    await settle();
    console.log(JSON.stringify({ withMuch, withLittle: room.percent }));`);
  // ~35 MB kept is more than the 32 MB room: V8’s factor 2; ~8 MB kept (node and its loaded modules): ×3
  assert.equal(result.withMuch, 100);
  assert.equal(result.withLittle, 200);
});

test('a --heap-growing-percent given to node holds', { timeout: 30_000 }, () => {
  const result = inChild(`globalThis.gc(); await settle(); console.log(JSON.stringify({ percent: room.percent ?? null }));`, ['--heap-growing-percent=30']);
  assert.equal(result.percent, null);
});
