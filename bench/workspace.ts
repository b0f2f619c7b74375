// Where a benchmark run keeps its temporary files (databases, gateway logs, the companions' JSON)
// and where the code it measures comes from: the working tree, or a snapshot of BENCH_REF.
//
// These are live bindings: only this module assigns them, every importer reads the current value.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BENCH, fail, gatewayMainEnv, keepTmp, ROOT } from './settings.ts';

/** the run's temporary directory; '' until createTmp() */
export let tmp = '';
/** where the processes' code comes from: the working tree, or the snapshot of BENCH_REF */
export let codeRoot = ROOT;
/**
 * The entry point `npm start` runs in a tree: src/start.mjs (compile cache on before any
 * TypeScript loads), or src/main.ts in a revision older than it.
 */
export function gatewayEntry(root: string): string {
  const start = join(root, 'src', 'start.mjs');
  return existsSync(start) ? start : join(root, 'src', 'main.ts');
}

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
 * Exports `src/` and `package.json` of a revision into the temporary directory (the benchmark's
 * own files and the simulators from the working tree beside them, node_modules linked), so that a tree other people
 * are editing cannot change the code halfway through a run. Returns the commit.
 */
export function snapshot(ref: string): string {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  if (!commit) fail(`BENCH_REF: unknown revision "${ref}"`);
  const dir = join(tmp, 'code');
  mkdirSync(join(dir, 'bench'), { recursive: true });
  const archive = spawnSync('sh', ['-c', 'git archive "$1" src package.json | tar -x -C "$2"', 'sh', commit, dir], { cwd: ROOT, encoding: 'utf8' });
  if (archive.status !== 0) fail(`could not export ${ref}: ${archive.stderr}`);
  // every script of the working tree's bench (the relays and clients it starts from there import their neighbours)
  for (const file of readdirSync(BENCH)) if (/\.(ts|mjs)$/.test(file)) copyFileSync(join(BENCH, file), join(dir, 'bench', file));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // the simulators are the instrument, not the code measured: the working tree's, for every revision
  symlinkSync(join(ROOT, 'simulators'), join(dir, 'simulators'));
  codeRoot = dir;
  if (!gatewayMainEnv) gatewayMain = gatewayEntry(dir);
  return commit;
}
