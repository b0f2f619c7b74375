// The gateway's entry point (`npm start`). Plain JavaScript so that Node's compile cache is on
// before the first TypeScript file loads: an entry in TypeScript is stripped by the type stripper
// before any of its code can turn the cache on, and loading the stripper cost ~100 ms of every
// start and ~20 MB of idle RSS (its WebAssembly memory stays for the life of the process,
// bench/entry-ab.ts: ready 988 → 892 ms, idle 171 → 151 MB). From here every .ts
// file, src/main.ts included, loads stripped and compiled from the cache (after the first start).
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./main.ts');
