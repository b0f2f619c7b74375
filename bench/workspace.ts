// Where a benchmark run keeps its temporary files (databases, gateway logs, the companions' JSON)
// and where the code it measures comes from: the working tree, or a snapshot of BENCH_REF.
//
// These are live bindings: only this module assigns them, every importer reads the current value.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BENCH, fail, gatewayMainEnv, keepTmp, perf, ROOT } from './settings.ts';

/** the run's temporary directory; '' until createTmp() */
export let tmp = '';
/** where the processes' code comes from: the working tree, or the snapshot of BENCH_REF */
export let codeRoot = ROOT;
/**
 * The entry point `npm start` runs in a tree: src/start.mjs (compile cache on before any
 * TypeScript loads), or src/main.ts in a revision older than it. Where the tree has a server
 * bundle (src/server-bundle.mjs), it is built first when missing or stale, as `npm start` does:
 * the bench measures what `npm start` runs. Under BENCH_PERF=1 the sources run (src/main.ts):
 * perf's samples are charged to stages by file name (perf-attribution.ts), and a bundle's chunks
 * mix many files.
 */
export function gatewayEntry(root: string): string {
  const start = join(root, 'src', 'start.mjs');
  if (!existsSync(start) || perf) return sourcesEntry(root);
  if (existsSync(join(root, 'src', 'server-bundle.mjs'))) {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-server.ts'), '--if-stale', '--root', root], { encoding: 'utf8' });
    if (build.status !== 0) fail(`could not build the server bundle of ${root}: ${build.stderr}`);
  }
  return start;
}

/**
 * Exports `src/`, `package.json` and the lock file of a revision into `dir`, with node_modules and
 * the working tree's simulators linked beside them (the simulators are the instrument, not the
 * code measured: the working tree's, for every revision).
 */
export function exportRevision(commit: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('sh', ['-c', 'git archive "$1" src package.json package-lock.json | tar -x -C "$2"', 'sh', commit, dir], { cwd: ROOT, encoding: 'utf8' });
  if (archive.status !== 0) fail(`could not export ${commit}: ${archive.stderr}`);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'simulators'), join(dir, 'simulators'));
}

/** The gateway's sources in a tree, whatever `npm start` runs: for profiles read by file name. */
export const sourcesEntry = (root: string): string => join(root, 'src', 'main.ts');

/** the gateway's entry point; another one only for A/B experiments on a patched copy */
export let gatewayMain = gatewayMainEnv ? resolve(ROOT, gatewayMainEnv) : gatewayEntry(ROOT);

export function createTmp(): void {
  tmp = mkdtempSync(join(tmpdir(), 'modelgate-bench-'));
}

/** Removes the temporary directory unless BENCH_KEEP_TMP=1 asked to keep it. */
export function removeTmp(): void {
  if (tmp && !keepTmp) rmSync(tmp, { recursive: true, force: true });
}

export function git(args: string[]): string {
  return spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
}

/**
 * Exports a revision into the temporary directory (exportRevision, with the working tree's bench
 * scripts beside it), so that a tree other people are editing cannot change the code halfway
 * through a run. Returns the commit.
 */
export function snapshot(ref: string): string {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  if (!commit) fail(`BENCH_REF: unknown revision "${ref}"`);
  const dir = join(tmp, 'code');
  exportRevision(commit, dir);
  // every script of the working tree's bench (the relays and clients it starts from there import their neighbours)
  mkdirSync(join(dir, 'bench'));
  for (const file of readdirSync(BENCH)) if (/\.(ts|mjs)$/.test(file)) copyFileSync(join(BENCH, file), join(dir, 'bench', file));
  codeRoot = dir;
  if (!gatewayMainEnv) gatewayMain = gatewayEntry(dir);
  return commit;
}
