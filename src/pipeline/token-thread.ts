import type { Worker } from 'node:worker_threads';
import { startSmallWorker } from '../core/small-worker.ts';
import { workerModule } from '../core/worker-module.ts';
import { byteBound } from '../core/tokens/token-counter.ts';

/**
 * How long the thread may sit unused before it ends. Its o200k tables are ~40–45 MB of the
 * process's memory, kept for nothing in a gateway whose clients rarely leave mid-request or send
 * large prompts; the next count builds them again (~0.2–0.3 s of CPU on its own thread, waited
 * for only where the count decides something). At one use a little past this apart, that is
 * under 1 % of a core.
 */
export const TOKEN_THREAD_IDLE_MS = 30_000;

/**
 * The thread's work is building its tables (~27 MB, all kept) and counting: a young generation
 * of the event loop's size (16 MB) would only hold garbage between counts.
 */
const TOKEN_WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/**
 * One worker thread, started when a count first needs it, holding the process open only while it
 * has work, and ended once it has been idle for `idleMs`. If it fails, the texts it had are
 * bounded by their bytes (a request is never failed for it) and the next count starts a new one.
 */
export class TokenThread {
  private current: Worker | undefined;
  private readonly pending = new Map<number, { texts: string[]; resolve: (counts: number[]) => void }>();
  private nextId = 0;
  private readonly idleMs: number;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(idleMs = TOKEN_THREAD_IDLE_MS) {
    this.idleMs = idleMs;
  }

  /** the thread, while there is one (tests) */
  get worker(): Worker | undefined {
    return this.current;
  }

  count(texts: string[]): Promise<number[]> {
    const worker = (this.current ??= this.start());
    const id = ++this.nextId;
    if (this.pending.size === 0) worker.ref();
    return new Promise((resolve) => {
      this.pending.set(id, { texts, resolve });
      worker.postMessage({ id, texts });
    });
  }

  private start(): Worker {
    const worker = startSmallWorker(workerModule('token-worker', import.meta.url), { execArgv: [], resourceLimits: TOKEN_WORKER_LIMITS, exposeGc: true });
    worker.unref();
    worker.on('message', (message: { id: number; counts: number[] }) => {
      const job = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) {
        worker.unref();
        this.retireWhenIdle();
      }
      job?.resolve(message.counts);
    });
    const fail = () => {
      if (this.current !== worker) return;
      this.current = undefined;
      for (const job of this.pending.values()) job.resolve(job.texts.map(byteBound));
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    return worker;
  }

  /** (Re)arms the idle timer, refreshed after each count; it ends whichever thread is current when it fires. */
  private retireWhenIdle(): void {
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      const worker = this.current;
      // a count arrived since: the timer is armed again when it is answered
      if (!worker || this.pending.size > 0) return;
      this.current = undefined;
      void worker.terminate();
    }, this.idleMs).unref();
  }
}
