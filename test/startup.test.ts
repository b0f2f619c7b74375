import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startDemo } from './helpers/demo-start.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What a new user does: `npm start` (its entry, src/start.mjs) on an empty database, then the printed curl. */
test('the gateway starts in demo mode, answers the printed request, and stops cleanly on SIGTERM', async (t) => {
  const { child, key, url, output } = await startDemo(t, dir);
  assert.match(output(), /"msg":"modelgate listening on http:\/\/127\.0\.0\.1:\d+\/v1/);

  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello!' }] }),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  assert.match(body.choices[0]!.message.content, /Hello!/);

  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.match(output(), /"msg":"stopped"/, 'the buffered log is flushed at shutdown');
  assert.match(output(), /"msg":"request"/, 'the request was logged');
});
