// The gateway's entry point (`npm start`). Plain JavaScript so that Node's compile cache is on
// before the first TypeScript file loads: an entry in TypeScript is stripped by the type stripper
// before any of its code can turn the cache on, and loading the stripper costs ~150 ms of the
// start-up and keeps ~6 MB of WebAssembly memory for the life of the process. From here every .ts
// file, src/main.ts included, loads stripped and compiled from the cache (after the first start).
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./main.ts');
