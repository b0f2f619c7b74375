import { enableCompileCache } from 'node:module';

// Compiled code and type-stripped sources kept on disk (os.tmpdir()/node-compile-cache, keyed by
// each file's content; NODE_DISABLE_COMPILE_CACHE=1 turns it off): every start after the first
// skips stripping and compiling ~1,300 modules (CPU to ready ~650 → ~420 ms). It covers only
// modules loaded after this call: the gateway's are imported below, in the order their static
// imports had. `npm start` enters through src/start.mjs, which turns it on before this file loads
// (so the type stripper is never loaded); started as `node src/main.ts`, it is turned on here.
enableCompileCache();

// V8 collects the old generation again once it has grown by a factor it derives from GC speed
// against allocation speed (up to 4×, swinging with the machine's load): held to what the last
// full GC kept or 48 MB, whichever is more (src/core/heap-growth.ts). V8 reads the flag at every
// GC, so it takes effect set here (the young generation's size does not: that one is
// --max-semi-space-size on the command line). A --heap-growing-percent given to node wins.
const { holdOldGenerationRoom } = await import('./core/heap-growth.ts');
holdOldGenerationRoom();
// and per-request objects are allocated young in every process, not in the old generation in some (src/core/pretenuring.ts)
const { turnOffAllocationSitePretenuring } = await import('./core/pretenuring.ts');
turnOffAllocationSitePretenuring();
// and the young generation collected when full, not at 80 % from a posted task (src/core/minor-gc-task.ts)
const { turnOffMinorGcTask } = await import('./core/minor-gc-task.ts');
turnOffMinorGcTask();
// and hot functions compiled by TurboFan alone, without Maglev's compiles in between (src/core/maglev.ts)
const { turnOffMaglev } = await import('./core/maglev.ts');
turnOffMaglev();
// V8's garbage-collection and compiler threads yield to the event loop (src/core/thread-priority.ts)
const { lowerV8PoolThreads } = await import('./core/thread-priority.ts');
lowerV8PoolThreads();
const { buildApp } = await import('./app.ts');
const { loadConfig } = await import('./config/env.ts');
const { checkRedis } = await import('./config/check-redis.ts');
const { startDemoIfWanted } = await import('./config/demo.ts');
const { exitOnStartupError } = await import('./config/startup-error.ts');
const { applyQuickStart, applyYamlConfig } = await import('./config/startup.ts');
const { closeGateway, createGateway } = await import('./gateway.ts');
const { closeApp } = await import('./http/close-app.ts');
const { createLogger, flushLogSync } = await import('./observability/logger.ts');
const { adapters } = await import('./vendors/registry.ts');

const config = loadConfig(process.env, Object.values(adapters).map((a) => a.manifest.envVar));
const log = createLogger(config.logLevel);
// this file is dist/server/main.mjs in the bundle (scripts/build-server.ts), ~40 % quicker to ready than the sources
const fromBundle = import.meta.url.endsWith('.mjs');
// from the sources beside a bundle built from others (an upgrade not followed by `npm ci`): said once
if (!fromBundle && (await import('./server-bundle.mjs')).bundleState() === 'stale') {
  log.warn('started from the sources: the server bundle in dist/server was built from other sources; "npm run build:server" (or npm start) rebuilds it, for a start ~40 % quicker and ~20 MB less memory');
}
// a database or Redis that cannot be reached is one line naming which and how to fix it, exit 1
if (config.redisUrl) await checkRedis(config.redisUrl).catch(exitOnStartupError);
const gateway = await createGateway(config, log).catch(exitOnStartupError);
await applyYamlConfig(gateway);
await applyQuickStart(gateway);
// the simulators are loaded only when demo mode runs: a product build may leave simulators/ out
const demo = await startDemoIfWanted(gateway, async () => (await import('../simulators/registry.ts')).simulators);
const app = await buildApp(gateway);
await app.listen({ port: config.port, host: config.host });
gateway.ready = true;

const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const base = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}/v1`;
// PORT=0: links can only name the port once the system chose it
if (config.port === 0 && !process.env.PUBLIC_BASE_URL && !config.yaml?.settings?.public_base_url) gateway.media.setPublicBaseUrl(base.slice(0, -'/v1'.length));
const consoleUrl = `${base.slice(0, -'/v1'.length)}/console/`;
log.info(
  { url: base, console: consoleUrl, database: gateway.store.describe, code: fromBundle ? 'bundle' : 'sources', admin: config.adminToken ? 'enabled' : 'closed (set MODELGATE_ADMIN_TOKEN)' },
  `modelgate listening on ${base} (web console ${consoleUrl}, database ${gateway.store.describe})`,
);
if (demo) {
  flushLogSync(log); // the buffered start-up line first, then the banner
  const curl = `curl ${base}/chat/completions -H "Authorization: Bearer ${demo.key}" -H "Content-Type: application/json" -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello!"}]}'`;
  // printed plainly too: this is the line a new user copies
  process.stdout.write(`\nDemo mode: the built-in vendor simulators are serving as providers.\nDemo key (shown once): ${demo.key}\nTry it:\n  ${curl}\n\n`);
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  gateway.ready = false;
  log.info({ signal }, 'shutting down: draining requests in flight');
  await closeApp(app, config.shutdownGraceMs);
  await closeGateway(gateway);
  for (const sim of demo?.simulators ?? []) await sim.close();
  log.info('stopped');
  log.flush();
  process.exitCode = 0;
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
