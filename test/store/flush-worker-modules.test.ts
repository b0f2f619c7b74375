// The flush thread loads no query builder (issue 21): kysely's 257 modules cost the thread
// 13–22 MB of memory, and the flush runs the statements the main thread compiled
// (src/store/flush-statements.ts) on node:sqlite directly.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { openStore } from '../../src/store/database.ts';
import { compileFlushStatements } from '../../src/store/flush-statements.ts';
import type { FlushWorkerData } from '../../src/store/flush-worker.ts';
import { sqliteDatabase } from '../helpers/databases.ts';

const database = sqliteDatabase('flush-modules');
after(() => database.drop());

test('the flush thread loads node: built-ins and the gateway’s own files, no package', async () => {
  const store = await openStore(database.url);
  const workerData: FlushWorkerData = { path: database.url.slice('sqlite:'.length), statements: await compileFlushStatements(store.db) };
  await store.close();
  // records every module the thread resolves, then loads the flush worker as the flusher does
  const probe = `
    import { registerHooks } from 'node:module';
    import { parentPort } from 'node:worker_threads';
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); loaded.push(resolved.url); return resolved; } });
    await import(${JSON.stringify(new URL('../../src/store/flush-worker.ts', import.meta.url).href)});
    parentPort.postMessage(loaded);
  `;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(probe)}`), { workerData });
  const loaded = await new Promise<string[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  const src = new URL('../../src/', import.meta.url).href;
  assert.deepEqual(
    loaded.filter((url) => !url.startsWith('node:') && !url.startsWith(src)),
    [],
  );
  assert.ok(loaded.some((url) => url.endsWith('/src/store/flush-batch.ts')), `the hook saw the worker's imports: ${loaded.join(', ')}`);
});
