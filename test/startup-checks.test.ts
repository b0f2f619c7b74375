// What a newcomer sees when the machine is not ready: an older Node, a database or Redis that
// cannot be reached. Each is one line naming what is wrong and how to fix it, exit 1, no stack.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-checks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const NPM = ['/usr/bin/npm', '/usr/local/bin/npm'].find((p) => existsSync(p));
const SYSTEM_NODE = '/usr/bin/node';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs to the end (killed after a minute: a check that failed to stop the command must not hang the suite). */
function run(command: string, args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const child = spawn(command, args, { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The one line the preflight prints, and nothing that looks like a stack or the old failure. */
function assertNodeLine(result: Run, found: string): void {
  assert.equal(result.code, 1, result.stdout + result.stderr);
  const lines = result.stderr.split('\n').filter((l) => l.includes('modelgate needs'));
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, new RegExp(`^modelgate needs Node\\.js 24 or newer; this is Node\\.js ${found.replaceAll('.', '\\.')} `));
  assert.doesNotMatch(result.stdout + result.stderr, /ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
}

/** A `node` that runs this Node but reports another version, first on PATH: what npm's scripts find. */
function fakeNode(version: string): string {
  const bin = mkdtempSync(join(dir, 'bin-'));
  const preload = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`;
  writeFileSync(join(bin, 'node'), `#!/bin/sh\nexec "${process.execPath}" --import '${preload}' "$@"\n`);
  chmodSync(join(bin, 'node'), 0o755);
  return bin;
}

const systemVersion = existsSync(SYSTEM_NODE) ? (await run(SYSTEM_NODE, ['-p', 'process.versions.node'], {})).stdout.trim() : '';
const systemIsOld = systemVersion !== '' && Number(systemVersion.split('.')[0]) < 24;

describe('Node version', () => {
  test('the preflight under a Node reporting 22.11.0 prints the needed and found versions in one line, exit 1; under this Node it passes', async () => {
    const bin = fakeNode('22.11.0');
    assertNodeLine(await run(join(bin, 'node'), ['scripts/check-node.cjs'], { PATH: process.env.PATH }), '22.11.0');
    const ok = await run(process.execPath, ['scripts/check-node.cjs'], { PATH: process.env.PATH });
    assert.deepEqual(ok, { code: 0, stdout: '', stderr: '' });
  });

  for (const script of [['start'], ['test'], ['run', 'prepare'], ['run', 'admin:create', '--', '--email', 'a@example.com']]) {
    test(`npm ${script.join(' ')} under a Node reporting 20.9.0 stops at the version line`, { skip: !NPM && 'npm is not installed at /usr/bin or /usr/local/bin' }, async () => {
      const bin = fakeNode('20.9.0');
      const result = await run(NPM!, script, { PATH: `${bin}:${process.env.PATH}`, HOME: dir, npm_config_update_notifier: 'false', DATABASE_URL: `sqlite:${join(dir, 'never.db')}` });
      assertNodeLine(result, '20.9.0');
      assert.equal(existsSync(join(dir, 'never.db')), false, 'nothing ran past the check');
    });
  }

  test(`npm start with the machine's own ${SYSTEM_NODE} (${systemVersion || 'absent'}) first on PATH`, { skip: !(systemIsOld && NPM) && `needs an older Node at ${SYSTEM_NODE} and npm (found ${systemVersion || 'no node'})` }, async () => {
    const result = await run(NPM!, ['start'], { PATH: `/usr/bin:${process.env.PATH}`, HOME: dir, npm_config_update_notifier: 'false' });
    assertNodeLine(result, systemVersion);
  });
});

describe('database and Redis', () => {
  const start = (env: Record<string, string>) =>
    run(process.execPath, ['src/main.ts'], {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      MODELGATE_DEMO: 'off',
      MODELGATE_MEDIA_DIR: join(dir, 'media'),
      MODELGATE_SETTLEMENT_LOG_DIR: join(dir, 'settlements'),
      ...env,
    });

  const assertOneLine = (result: Run, pattern: RegExp) => {
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^[^\n]+\n$/, `one line: ${result.stderr}`);
    assert.match(result.stderr, pattern);
    assert.doesNotMatch(result.stderr, /secret/, 'no password');
  };

  test('an unreachable PostgreSQL: one line naming it (no password) and how to fix it, exit 1', async () => {
    const result = await start({ DATABASE_URL: 'postgres://user:secret@127.0.0.1:1/x' });
    assertOneLine(result, /^modelgate cannot connect to PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/x \(.*ECONNREFUSED.*\): check that PostgreSQL runs there .*DATABASE_URL/);
  });

  test('an unreachable Redis: one line naming it (no password) and how to fix it, exit 1', async () => {
    const result = await start({ DATABASE_URL: 'sqlite::memory:', REDIS_URL: 'redis://:secret@127.0.0.1:1' });
    assertOneLine(result, /^modelgate cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(.*ECONNREFUSED.*\): start Redis there, or correct REDIS_URL/);
  });

  test('a SQLite path that cannot be written: one line naming it and how to fix it, exit 1', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const result = await start({ DATABASE_URL: `sqlite:${file}/modelgate.db` });
    assertOneLine(result, /^modelgate cannot open the SQLite database sqlite:.*a-file\/modelgate\.db \(.+\): make its directory writable, or set DATABASE_URL=sqlite:/);
  });
});
