// Where `npm run build:server` (scripts/build-server.ts) puts the gateway — an entry file per
// thread and the chunks they share — and whether it is still the sources' build. Plain JavaScript: src/start.mjs
// reads it before any TypeScript loads. Loading ~1,300 modules is most of a start (kysely alone
// is 257 files): from the bundle the gateway is ready in ~40 % less time (docs/benchmarks.md,
// "Where the start-up goes").
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root (this file is in src/). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The bundle's folder: two levels below the root, as src/<folder>/ is, so that a path a module
 * makes relative to itself (`../../console/dist/`) holds in both.
 */
export const bundleDir = (root = ROOT) => join(root, 'dist', 'server');

/** What a bundle was built from: [path relative to the root, mtimeMs, size] of each source file and the lock file. */
export const manifestPath = (root = ROOT) => join(bundleDir(root), 'inputs.json');

/**
 * Whether the bundle under `root` was built (`missing`: no manifest, or an unreadable one) and,
 * if so, whether every file it was built from is unchanged (same size and modification time):
 * a checkout, an edit or a new lock file makes it `stale`, and the gateway then starts from the
 * sources. ~400 stat calls, a few milliseconds.
 */
export function bundleState(root = ROOT) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath(root), 'utf8'));
  } catch {
    return 'missing';
  }
  if (!Array.isArray(manifest?.files) || manifest.files.length === 0) return 'missing';
  for (const [path, mtimeMs, size] of manifest.files) {
    let stat;
    try {
      stat = statSync(join(root, path));
    } catch {
      return 'stale';
    }
    if (stat.mtimeMs !== mtimeMs || stat.size !== size) return 'stale';
  }
  return 'fresh';
}

/** Whether src/start.mjs runs the bundle under `root`. */
export const bundleIsFresh = (root = ROOT) => bundleState(root) === 'fresh';
