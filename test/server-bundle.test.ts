// The server bundle (scripts/build-server.ts, src/server-bundle.mjs): `npm start` runs it while it
// is the sources' build, and it behaves as the sources do — worker threads and lazily loaded code included.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { countTextTokens } from '../src/core/tokens/token-counter.ts';
import { bundleDir, bundleIsFresh, bundleState, manifestPath } from '../src/server-bundle.mjs';
import { startChildGateway } from './helpers/child-gateway.ts';
import { startDemo } from './helpers/demo-start.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-bundle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a bundle is fresh while every file it was built from keeps its size and modification time, stale after, missing without a manifest', () => {
  const root = join(dir, 'tree');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(bundleDir(root), { recursive: true });
  assert.equal(bundleState(root), 'missing', 'no manifest: not built');
  const source = join(root, 'src', 'a.ts');
  writeFileSync(source, 'export const a = 1;\n');
  utimesSync(source, 1_700_000_000, 1_700_000_000);
  writeFileSync(manifestPath(root), JSON.stringify({ files: [['src/a.ts', 1_700_000_000_000, 20]] }));
  assert.equal(bundleIsFresh(root), true);

  writeFileSync(source, 'export const a = 2;\n'); // same size, a new time: an edit
  assert.equal(bundleState(root), 'stale', 'an edited source');
  utimesSync(source, 1_700_000_000, 1_700_000_000);
  assert.equal(bundleIsFresh(root), true);
  writeFileSync(manifestPath(root), JSON.stringify({ files: [['src/a.ts', 1_700_000_000_000, 21]] }));
  assert.equal(bundleIsFresh(root), false, 'another size');
  writeFileSync(manifestPath(root), JSON.stringify({ files: [['src/gone.ts', 1_700_000_000_000, 20]] }));
  assert.equal(bundleState(root), 'stale', 'a source that is gone');
  writeFileSync(manifestPath(root), '{"files":[]}');
  assert.equal(bundleState(root), 'missing', 'an empty manifest');
  writeFileSync(manifestPath(root), 'not json');
  assert.equal(bundleState(root), 'missing', 'a broken manifest');
});

test('a build that fails exits 1, or 0 with --optional (npm install and npm start go on from the sources), and leaves no manifest behind', () => {
  const root = join(dir, 'broken-tree');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'main.ts'), 'export const = ;\n');
  writeFileSync(join(root, 'package-lock.json'), '{}\n');
  mkdirSync(bundleDir(root), { recursive: true });
  writeFileSync(manifestPath(root), JSON.stringify({ files: [['src/main.ts', 0, 0]] }));
  for (const [flags, status] of [[[], 1], [['--optional'], 0]] as const) {
    const build = spawnSync(process.execPath, ['scripts/build-server.ts', '--root', root, ...flags], { encoding: 'utf8' });
    assert.equal(build.status, status, build.stderr);
    assert.match(build.stderr, /the server bundle could not be built, so the gateway will start from its sources/);
    assert.equal(bundleState(root), 'missing');
    assert.deepEqual(readdirSync(join(root, 'dist')), ['server'], 'no staging folder left');
  }
});

test('a dist/ that cannot be written does not stop npm start (--optional): the reason is said, the sources run', () => {
  const root = join(dir, 'unwritable-tree');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'main.ts'), 'export {};\n');
  writeFileSync(join(root, 'dist'), 'a file where the folder would be\n');
  const build = spawnSync(process.execPath, ['scripts/build-server.ts', '--root', root, '--if-stale', '--optional'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  assert.match(build.stderr, /the server bundle could not be built, so the gateway will start from its sources: .*(ENOTDIR|EEXIST)/);
  assert.equal(bundleState(root), 'missing');
});

test('npm start runs the bundle: it answers, counts a large prompt in its tokenizer thread, serves the console, and its flush thread writes the ledger', async (t) => {
  const build = spawnSync(process.execPath, ['scripts/build-server.ts', '--if-stale'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  assert.equal(bundleIsFresh(), true, `the build left the bundle stale: ${build.stdout}${build.stderr}`);

  // the tokenizer thread's module, as the bundle starts it, counts as the sources do
  const texts = ['Hello, world!', 'héllo 世界 🙂 '.repeat(50), 'x'.repeat(1000)];
  const worker = new Worker(join(bundleDir(), 'token-worker.mjs'));
  t.after(() => worker.terminate());
  worker.postMessage({ id: 1, texts });
  const [reply] = (await once(worker, 'message')) as [{ id: number; counts: number[] }];
  assert.deepEqual(reply, { id: 1, counts: texts.map(countTextTokens) });

  const { child, key, url, output } = await startDemo(t, dir);
  assert.match(output(), /"code":"bundle"/, 'the listening line says the bundle runs');

  const ask = (content: string) =>
    fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }) });
  const small = await ask('Hello!');
  assert.equal(small.status, 200);
  assert.match(((await small.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content, /Hello!/);
  // past 16 KB the prompt is counted in the tokenizer thread (src/pipeline/off-loop-counter.ts)
  const large = await ask('word '.repeat(8000));
  assert.equal(large.status, 200);
  await large.arrayBuffer();
  // a path the bundle's code makes relative to itself: the console's built front end
  const page = await fetch(new URL('/console/', url));
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await page.text(), /<script[^>]+src="[^"]+\.js"/);

  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  assert.deepEqual(await exited, [0, null]);
  assert.match(output(), /"msg":"stopped"/);
  const db = new DatabaseSync(join(dir, 'modelgate.db'), { readOnly: true });
  t.after(() => db.close());
  const rows = db.prepare('SELECT count(*) AS n FROM usage_log').get() as { n: number };
  assert.equal(rows.n, 2, 'both requests are in the usage log, written by the flush thread');
});

test('each file of the bundle has a source map that leads its lines back to the sources (for NODE_OPTIONS=--enable-source-maps)', () => {
  const build = spawnSync(process.execPath, ['scripts/build-server.ts', '--if-stale'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  const files = readdirSync(bundleDir());
  // a chunk of re-exports only has no code to map, and no map
  const orphans = files.filter((file) => file.endsWith('.map') && !files.includes(file.slice(0, -'.map'.length)));
  assert.deepEqual(orphans, [], 'no map outlives its module');
  for (const entry of ['main', 'flush-worker', 'token-worker']) assert.ok(files.includes(`${entry}.mjs.map`), `${entry}.mjs has a map`);
  const main = readFileSync(join(bundleDir(), 'main.mjs'), 'utf8');
  assert.match(main, /\n\/\/# sourceMappingURL=main\.mjs\.map\n?$/);
  const payload = JSON.parse(readFileSync(join(bundleDir(), 'main.mjs.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
  assert.equal(payload.sourcesContent, undefined, 'positions only: the sources are beside the bundle');
  // a statement of src/main.ts, found in the bundle, maps to its own line there
  const statement = 'lowerV8PoolThreads();';
  const line = main.split('\n').findIndex((text) => text.trim() === statement);
  const sourceLine = readFileSync('src/main.ts', 'utf8').split('\n').findIndex((text) => text.trim() === statement);
  assert.ok(line >= 0 && sourceLine >= 0);
  const origin = new SourceMap(payload as never).findEntry(line, main.split('\n')[line]!.indexOf(statement)) as { originalSource?: string; originalLine?: number };
  assert.equal(origin.originalLine, sourceLine, JSON.stringify(origin));
  assert.ok(origin.originalSource && resolve(bundleDir(), origin.originalSource) === resolve('src/main.ts'), JSON.stringify(origin));
});

test('started from the sources beside a bundle built from other sources, the gateway says so', async (t) => {
  // a copy of the sources with a manifest that disagrees with one of them: the shared tree's
  // bundle stays fresh for the suites running beside this one
  const root = join(dir, 'stale-tree');
  cpSync('src', join(root, 'src'), { recursive: true });
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  mkdirSync(bundleDir(root), { recursive: true });
  writeFileSync(manifestPath(root), JSON.stringify({ files: [['src/main.ts', 0, 0]] }));
  assert.equal(bundleState(root), 'stale');

  const gateway = await startChildGateway({ DATABASE_URL: `sqlite:${join(dir, 'stale.db')}`, MODELGATE_DEMO: 'off', LOG_LEVEL: 'info' }, join(root, 'src', 'main.ts'));
  t.after(() => gateway.kill9());
  assert.match(gateway.output(), /"level":40,[^\n]*"msg":"started from the sources: the server bundle in dist\/server was built from other sources/);
  assert.match(gateway.output(), /"code":"sources"/);
});

test('started from the sources beside a fresh bundle, the gateway says nothing of it', async (t) => {
  const build = spawnSync(process.execPath, ['scripts/build-server.ts', '--if-stale'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  const gateway = await startChildGateway({ DATABASE_URL: `sqlite:${join(dir, 'fresh.db')}`, MODELGATE_DEMO: 'off', LOG_LEVEL: 'info' });
  t.after(() => gateway.kill9());
  assert.doesNotMatch(gateway.output(), /server bundle/);
  assert.match(gateway.output(), /"code":"sources"/);
});
