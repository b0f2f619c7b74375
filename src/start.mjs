// The gateway's entry point (`npm start`). Plain JavaScript so that Node's compile cache is on
// before the first module of the gateway loads: an entry in TypeScript is stripped by the type
// stripper before any of its code can turn the cache on, and loading the stripper cost ~100 ms of
// every start and ~20 MB of idle RSS (its WebAssembly memory stays for the life of the process).
// It runs the bundle (dist/server/main.mjs, src/server-bundle.mjs) when that was built from the
// sources as they are, else src/main.ts: every .ts file then loads stripped and compiled from the
// cache (after the first start).
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleDir, bundleIsFresh } from './server-bundle.mjs';

enableCompileCache();
if (bundleIsFresh()) await import(pathToFileURL(join(bundleDir(), 'main.mjs')).href);
else await import('./main.ts');
