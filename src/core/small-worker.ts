import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { nodeArgs, nodeWasGiven } from './node-flags.ts';

/**
 * The `--max-semi-space-size` node was started with (npm start gives 8: the event loop's young
 * generation), from its arguments or NODE_OPTIONS; undefined when none was given.
 */
export function semiSpaceFlag(argv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string | undefined {
  const args = nodeArgs(argv, nodeOptions);
  let value: string | undefined;
  args.forEach((arg, i) => {
    const match = /^--max[-_]semi[-_]space[-_]size(?:=(\d+))?$/.exec(arg);
    if (match) value = match[1] ?? args[i + 1];
  });
  return value !== undefined && /^\d+$/.test(value) ? value : undefined;
}

let settingAside = 0;
let exposing = 0;

export interface SmallWorkerOptions extends WorkerOptions {
  resourceLimits: { maxYoungGenerationSizeMb: number };
  /**
   * `gc()` in the worker (V8's `--expose-gc`, set while its isolate is created, as the semi-space
   * flag below is set aside): for a thread that builds large tables once and then sits idle,
   * where V8 would keep the pages the build's garbage held for as long as the thread lives.
   */
  exposeGc?: boolean;
}

/**
 * A worker whose own young generation holds (`resourceLimits.maxYoungGenerationSizeMb`). A
 * `--max-semi-space-size` given to node is a process-wide V8 flag that wins over a worker's limit:
 * every worker isolate got the event loop's 16 MB of young generation, committed once used. V8
 * reads the flag once, when an isolate is created: it is set aside (0: none) until the worker is
 * online, then put back; the event loop's isolate was sized at start and keeps its size.
 * `--expose-gc` is read when a context is created: set for the same moment, it reaches the
 * worker's context alone (the event loop's exists already), unless node was given it either way.
 */
export function startSmallWorker(url: URL, options: SmallWorkerOptions): Worker {
  const { exposeGc = false, ...workerOptions } = options;
  const flag = semiSpaceFlag();
  const gcFlag = exposeGc && !nodeWasGiven('expose-gc');
  if (flag === undefined && !gcFlag) return new Worker(url, workerOptions);
  if (flag !== undefined && settingAside++ === 0) setFlagsFromString('--max-semi-space-size=0');
  if (gcFlag && exposing++ === 0) setFlagsFromString('--expose-gc');
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    if (flag !== undefined && --settingAside === 0) setFlagsFromString(`--max-semi-space-size=${flag}`);
    if (gcFlag && --exposing === 0) setFlagsFromString('--no-expose-gc');
  };
  try {
    const worker = new Worker(url, workerOptions);
    worker.once('online', restore);
    worker.once('error', restore);
    worker.once('exit', restore);
    return worker;
  } catch (error) {
    restore();
    throw error;
  }
}
