// `npm run cluster -- --instances N`: N gateway processes on one PostgreSQL database and one Redis,
// on consecutive ports from PORT, each with its own PUBLIC_BASE_URL. Instance 0 plays the spec's
// regional base address ({base_url}) and instance 1 the global-acceleration one
// ({global_base_url}): same paths, same keys, same balances. PostgreSQL and Redis must be running
// already (this starts neither); the instances start one after the other (the first one migrates).
// SIGINT/SIGTERM are passed on and each instance drains for MODELGATE_SHUTDOWN_GRACE_MS.
import { existsSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { clusterPrerequisites } from './cluster-checks.ts';

const USAGE = 'usage: npm run cluster -- --instances N [--restart] [--regional-url URL] [--global-url URL]';
const options = {
  instances: { type: 'string', default: '2' },
  // restart an instance that exits on its own (it replays its settlement log when it starts)
  restart: { type: 'boolean', default: false },
  // the PUBLIC_BASE_URL of instances 0 and 1 when a reverse proxy serves them under other names
  'regional-url': { type: 'string' },
  'global-url': { type: 'string' },
} as const;
function readArgs() {
  try {
    return parseArgs({ options }).values;
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
}
const args = readArgs();
// the instances read .env themselves; the checks below need it first
if (existsSync('.env')) process.loadEnvFile('.env');
const count = Number(args.instances);
if (!Number.isInteger(count) || count < 1 || count > 64) fail(`--instances must be an integer from 1 to 64 (got "${args.instances}")\n${USAGE}`);
const basePort = Number(process.env.PORT ?? '3000');
if (!Number.isInteger(basePort) || basePort < 0 || basePort + count - 1 > 65535) fail(`PORT must be a port from 0 to ${65536 - count} for ${count} instances (got "${process.env.PORT}")`);

const problem = await clusterPrerequisites(process.env.DATABASE_URL, process.env.REDIS_URL);
if (problem) fail(problem);

const host = process.env.HOST ?? '127.0.0.1';
const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
const ROLES = ['regional', 'global'];

interface Instance {
  index: number;
  port: number;
  /** empty with PORT=0 until the instance has chosen its port (it then derives its own) */
  publicBaseUrl: string;
  child: ChildProcess;
  /** the address it listens on, /v1 included, once it does */
  listening: Promise<string>;
}

const instances: Instance[] = [];
let stopping = false;

function start(index: number): Instance {
  const port = basePort === 0 ? 0 : basePort + index;
  const override = index === 0 ? args['regional-url'] : index === 1 ? args['global-url'] : undefined;
  const publicBaseUrl = override ?? (port === 0 ? '' : `http://${urlHost}:${port}`);
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), PUBLIC_BASE_URL: publicBaseUrl };
  if (!publicBaseUrl) delete env.PUBLIC_BASE_URL;
  // the demo's simulators live inside one process: only the first instance may run them
  if (index > 0) env.MODELGATE_DEMO = 'off';
  const child = spawn(process.execPath, ['--max-semi-space-size=8', 'src/start.mjs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const listening = new Promise<string>((resolve, reject) => {
    const prefix = `[${index}] `;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        const url = /modelgate listening on (http:\/\/\S+\/v1)/.exec(line)?.[1];
        if (url) resolve(url);
        (stream === child.stderr ? process.stderr : process.stdout).write(prefix + line + '\n');
      });
    }
    child.once('exit', (code, signal) => reject(new Error(`instance ${index} exited (${signal ?? `code ${code}`}) before listening`)));
  });
  listening.catch(() => {}); // awaited below; an exit after listening is handled on 'exit'
  const instance: Instance = { index, port, publicBaseUrl, child, listening };
  child.once('exit', (code, signal) => onExit(instance, code, signal));
  return instance;
}

const exited = (i: Instance) => i.child.exitCode !== null || i.child.signalCode !== null;

function onExit(instance: Instance, code: number | null, signal: NodeJS.Signals | null): void {
  if (stopping) {
    if (instances.every(exited)) {
      const clean = instances.every(({ child }) => child.exitCode === 0);
      console.log(`[cluster] stopped${clean ? '' : ' (some instances did not exit cleanly)'}`);
      process.exitCode ??= clean ? 0 : 1;
    }
    return;
  }
  const how = signal ?? `code ${code}`;
  if (!args.restart) {
    console.error(`[cluster] instance ${instance.index} exited (${how}); not restarted (--restart restarts instances)`);
    if (instances.every(exited)) process.exitCode = 1;
    return;
  }
  console.error(`[cluster] instance ${instance.index} exited (${how}); restarting it`);
  const again = start(instance.index);
  instances[instance.index] = again;
  again.listening.then(
    (url) => console.log(`[cluster] instance ${instance.index} restarted: pid ${again.child.pid} at ${url}`),
    (err: Error) => console.error(`[cluster] ${err.message}`),
  );
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`[cluster] ${signal}: stopping ${instances.length} instances (each drains for up to MODELGATE_SHUTDOWN_GRACE_MS)`);
    for (const { child } of instances) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
}

// the first one alone (it migrates the database), then the others together
const addresses: string[] = [];
for (const batch of [[0], [...Array(count).keys()].slice(1)]) {
  if (stopping) break;
  const started = batch.map(start);
  instances.push(...started);
  try {
    addresses.push(...(await Promise.all(started.map((i) => i.listening))));
  } catch (err) {
    if (stopping) break; // a signal came while they were starting: they are on their way out
    stopping = true;
    console.error(`[cluster] ${(err as Error).message}; stopping the others`);
    process.exitCode = 1;
    for (const { child } of instances) child.kill('SIGTERM');
  }
}
if (!stopping) {
  const rows = instances.map((i, n) => [String(i.index), ROLES[i.index] ?? '-', String(i.child.pid), addresses[n]!, i.publicBaseUrl || addresses[n]!.slice(0, -'/v1'.length)]);
  const table = [['#', 'role', 'pid', 'address', 'PUBLIC_BASE_URL'], ...rows];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  console.log(`[cluster] ${count} instance${count === 1 ? '' : 's'} on one PostgreSQL database and one Redis:`);
  for (const row of table) console.log('[cluster]   ' + row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
  if (count > 1) console.log('[cluster] regional = the spec\'s {base_url}, global = its {global_base_url}: same paths, keys and balances on both');
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
