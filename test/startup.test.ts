import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What a new user does: `npm start` (its entry, src/start.mjs) on an empty database, then the printed curl. */
test('the gateway starts in demo mode, answers the printed request, and stops cleanly on SIGTERM', async (t) => {
  const child = spawn(process.execPath, ['src/start.mjs'], {
    env: { ...process.env, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'modelgate.db')}`, MODELGATE_DEMO: 'auto', MODELGATE_MEDIA_DIR: join(dir, 'media'), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // a failed assertion must not leave the gateway running (its pipes would keep the suite alive)
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let output = '';
  const banner = new Promise<{ key: string; url: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const key = /Demo key \(shown once\): (sk-[A-Za-z0-9]+)/.exec(output)?.[1];
      const url = /curl (http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions)/.exec(output)?.[1];
      if (key && url) resolve({ key, url });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before the banner:\n${output}`)));
  });
  const { key, url } = await banner;
  assert.match(output, /"msg":"modelgate listening on http:\/\/127\.0\.0\.1:\d+\/v1/);

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
  assert.match(output, /"msg":"stopped"/, 'the buffered log is flushed at shutdown');
  assert.match(output, /"msg":"request"/, 'the request was logged');
});
