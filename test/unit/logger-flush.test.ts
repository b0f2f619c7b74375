import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

test('flushLogSync writes the buffered lines before whatever is printed next', () => {
  // main.ts prints its banner right after flushLogSync: the start-up line must come first
  const logger = pathToFileURL('src/observability/logger.ts').href;
  // the one libuv thread is kept busy, so a write left to it (asynchronous) would come last
  const script = `
    import { pbkdf2 } from 'node:crypto';
    import { createLogger, flushLogSync } from ${JSON.stringify(logger)};
    pbkdf2('p', 's', 300000, 32, 'sha256', () => {});
    const log = createLogger('info');
    log.info('first line');
    flushLogSync(log);
    process.stdout.write('BANNER\\n');
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, UV_THREADPOOL_SIZE: '1' } });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.match(lines[0] ?? '', /"msg":"first line"/);
  assert.equal(lines[1], 'BANNER');
});
