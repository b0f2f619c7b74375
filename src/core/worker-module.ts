/**
 * The URL of a worker thread's module beside the calling module: `<name>.ts` among the sources,
 * `<name>.mjs` beside the bundle's main.mjs, where scripts/build-server.ts builds each worker as
 * a file of its own.
 */
export function workerModule(name: string, callerUrl: string): URL {
  return new URL(callerUrl.endsWith('.ts') ? `./${name}.ts` : `./${name}.mjs`, callerUrl);
}
