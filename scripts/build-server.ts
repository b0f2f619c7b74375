// Builds the gateway into dist/server: main.mjs and each worker thread's module, their shared and
// lazily imported code in content-named chunks beside them, a source map beside each (positions
// only: stack traces name src/ files and lines under NODE_OPTIONS=--enable-source-maps; Node reads
// no map otherwise), and inputs.json, what they were built from. src/start.mjs runs the bundle
// while it is fresh (src/server-bundle.mjs). Run by
// `npm install`/`npm ci` ("prepare") and by `npm start` when the bundle is missing or stale;
// without rolldown (an install that omitted dev dependencies) it says so and the gateway starts
// from the sources.
//
//   node scripts/build-server.ts [--if-stale] [--optional] [--root <dir>]
//     --optional: a failed build warns and exits 0 (npm install and npm start must not fail for want
//     of the bundle: the gateway runs from its sources); root: another tree, the bench's snapshot
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { bundleDir, bundleIsFresh, manifestPath, ROOT } from '../src/server-bundle.mjs';

const argRoot = process.argv.indexOf('--root');
const root = argRoot > 0 ? resolve(process.argv[argRoot + 1]!) : ROOT;
if (process.argv.includes('--if-stale') && bundleIsFresh(root)) process.exit(0);

/** The files a thread starts from, by the module each one is built from. */
const ENTRIES: Record<string, string> = {
  main: 'src/main.ts',
  'flush-worker': 'src/store/flush-worker.ts',
  'token-worker': 'src/pipeline/token-worker.ts',
};

let rolldown: typeof import('rolldown');
try {
  rolldown = await import('rolldown');
} catch {
  console.warn('modelgate: rolldown is not installed (dev dependencies omitted?), so the gateway will start from its sources. Run "npm install" then "npm run build:server".');
  process.exit(0);
}

const startedAt = Date.now();
const out = bundleDir(root);
try {
  const written = await buildInto(out);
  const files = recordInputs(written.inputs);
  // An older build's chunks go. Chunks are named by their content, so a gateway still running an
  // older build finds those it may import late (the audio parsers, dependencies' code) unless they changed.
  for (const file of readdirSync(out)) {
    const module = file.endsWith('.mjs.map') ? file.slice(0, -'.map'.length) : file;
    if (module.endsWith('.mjs') && !written.files.includes(module)) rmSync(join(out, file));
  }
  if (files) console.log(`modelgate: server bundle built into ${relative(process.cwd(), out) || '.'} (${files} source files, ${written.files.length} files, ${Date.now() - startedAt} ms)`);
} catch (error) {
  // whatever was built before is stale now: not run (a dist/ that cannot be written has none)
  try {
    rmSync(manifestPath(root), { force: true });
  } catch {}
  console.error(`modelgate: the server bundle could not be built, so the gateway will start from its sources: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(process.argv.includes('--optional') ? 0 : 1);
}

/** Builds the bundle beside `out`, then moves it in: a gateway starting meanwhile never reads half a file. */
async function buildInto(out: string): Promise<{ files: string[]; inputs: Set<string> }> {
  mkdirSync(out, { recursive: true });
  const staging = mkdtempSync(join(root, 'dist', '.server-'));
  try {
    const { output } = await rolldown.build({
      input: Object.fromEntries(Object.entries(ENTRIES).map(([name, entry]) => [name, join(root, entry)])),
      platform: 'node',
      logLevel: 'warn',
      output: { dir: staging, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunk-[name]-[hash].mjs', sourcemap: true, sourcemapExcludeSources: true },
    });
    const files: string[] = [];
    const inputs = new Set<string>();
    for (const chunk of output) {
      if (chunk.type !== 'chunk') continue;
      files.push(chunk.fileName);
      for (const id of chunk.moduleIds) if (!id.includes('/node_modules/') && !id.startsWith('\0')) inputs.add(id);
    }
    // maps, then chunks, the entries that import them last
    const isEntry = (file: string) => file.slice(0, -'.mjs'.length) in ENTRIES;
    const maps = files.map((file) => `${file}.map`).filter((map) => existsSync(join(staging, map)));
    for (const file of [...maps, ...files.filter((f) => !isEntry(f)), ...files.filter(isEntry)]) renameSync(join(staging, file), join(out, file));
    return { files, inputs };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Writes inputs.json: what the bundle was built from. The dependencies are in the bundle, so a new
 * lock file makes it stale as an edited source does, and so does an edit to this script. Returns how many files it lists, or 0 when a
 * source changed during the build (no manifest: the bundle stays stale).
 */
function recordInputs(inputs: Set<string>): number {
  // this script too: a change to how the bundle is built makes it stale
  const builder = join(root, 'scripts', 'build-server.ts');
  const files = [...inputs, join(root, 'package-lock.json'), ...(existsSync(builder) ? [builder] : [])].map((file) => {
    const stat = statSync(file);
    return [relative(root, file), stat.mtimeMs, stat.size] as const;
  });
  rmSync(manifestPath(root), { force: true });
  const editedMeanwhile = files.filter(([, mtimeMs]) => mtimeMs >= startedAt).map(([path]) => path);
  if (editedMeanwhile.length > 0) {
    console.warn(`modelgate: ${editedMeanwhile.join(', ')} changed during the build: the bundle is left stale (run "npm run build:server" again)`);
    return 0;
  }
  writeFileSync(`${manifestPath(root)}.tmp`, `${JSON.stringify({ files })}\n`);
  renameSync(`${manifestPath(root)}.tmp`, manifestPath(root));
  return files.length;
}
