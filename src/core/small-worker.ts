import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { nodeArgs } from './node-flags.ts';

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

let creating = 0;

/**
 * A worker whose own young generation holds (`resourceLimits.maxYoungGenerationSizeMb`). A
 * `--max-semi-space-size` given to node is a process-wide V8 flag that wins over a worker's limit:
 * every worker isolate got the event loop's 16 MB of young generation, committed once used. V8
 * reads the flag once, when an isolate is created: it is set aside (0: none) until the worker is
 * online, then put back; the event loop's isolate was sized at start and keeps its size.
 */
export function startSmallWorker(url: URL, options: WorkerOptions & { resourceLimits: { maxYoungGenerationSizeMb: number } }): Worker {
  const flag = semiSpaceFlag();
  if (flag === undefined) return new Worker(url, options);
  if (creating++ === 0) setFlagsFromString('--max-semi-space-size=0');
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    if (--creating === 0) setFlagsFromString(`--max-semi-space-size=${flag}`);
  };
  try {
    const worker = new Worker(url, options);
    worker.once('online', restore);
    worker.once('error', restore);
    worker.once('exit', restore);
    return worker;
  } catch (error) {
    restore();
    throw error;
  }
}
