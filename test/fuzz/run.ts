// The fuzz loop: fast-check draws batches of cases from a seed, each batch is sent with bounded
// concurrency, then the invariants are checked: per answer, then ledger, flush, memory and
// event-loop delay for the batch. A failing batch is shrunk by fast-check to the fewest, smallest
// cases that still fail, and reported with the seed and path that replay it.
import fc from 'fast-check';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { anyCase } from './cases.ts';
import { checkAnswer, checkRealtime, type Violation } from './invariants.ts';
import { isRealtime, type FuzzCase } from './request.ts';
import { play, send } from './send.ts';
import type { World } from './world.ts';
import { expectedCostNano } from '../helpers/billing.ts';
import { CHAT_MODELS, EMBEDDING_MODELS } from './routes-openai.ts';

export interface FuzzOptions {
  seed: number;
  /** batches to draw */
  runs: number;
  /** the most cases in one batch (drawn uniformly from 1 to this: half of it on average) */
  batchSize?: number;
  concurrency?: number;
  /** replay one counterexample (fast-check's path) */
  path?: string;
  /** false: report the first failing batch as drawn */
  shrink?: boolean;
  /**
   * batches run while shrinking, at most: past it every candidate counts as passing, so the
   * shrinker stops where it is (a count, not a time: the result depends on the seed only)
   */
  shrinkBudget?: number;
  /** true: never stop; gather every distinct failure */
  survey?: boolean;
  rssGrowthBoundBytes?: number;
  eventLoopDelayBoundMs?: number;
}

export interface CaseViolation extends Violation {
  case: FuzzCase;
}

export interface FuzzReport {
  ok: boolean;
  seed: number;
  requests: number;
  sessions: number;
  statuses: Record<string, number>;
  fiveXx: number;
  maxEventLoopDelayMs: number;
  rssGrowthMB: number;
  /** JavaScript heap growth after a full collection (what the gateway holds, where RSS also counts freed pages kept) */
  heapGrowthMB: number;
  /** whether flush lag and dead letters were checked (in /readyz), or why not */
  flush: string;
  durationMs: number;
  /** the shrunk failure, printable (absent when ok) */
  failure?: string;
  /** milliseconds spent per route (summed over its cases), to see where the time goes */
  timeByRoute: Record<string, number>;
  /** survey mode: each distinct failure (rule + route + status) once, with its first case */
  distinct: Map<string, { count: number; example: CaseViolation }>;
}

class BatchFailure extends Error {
  readonly violations: CaseViolation[];
  constructor(violations: CaseViolation[]) {
    super(`${violations.length} invariant(s) broken; first: ${violations[0]!.rule} on ${violations[0]!.route}`);
    this.violations = violations;
  }
}

/** Strings shortened, deep nests summarised: a case small enough to read. */
export function printable(value: unknown): string {
  const seen = new WeakMap<object, number>();
  return JSON.stringify(
    value,
    function (this: unknown, _key, v: unknown) {
      if (typeof v === 'string' && v.length > 120) return `${v.slice(0, 60)}…(${v.length} chars, ${JSON.stringify(v.slice(-8))} at the end)`;
      if (typeof v === 'object' && v !== null) {
        const depth = (typeof this === 'object' && this !== null ? (seen.get(this as object) ?? 0) : 0) + 1;
        if (depth > 12) return `…(${Array.isArray(v) ? 'arrays' : 'objects'} nested deeper)`;
        seen.set(v, depth);
      }
      return v;
    },
    1,
  );
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Waits until every hold is settled and every realtime session gone; video jobs are worked meanwhile. */
async function settled(world: World, boundMs = 15_000): Promise<boolean> {
  const until = Date.now() + boundMs;
  while (Date.now() < until) {
    await world.gateway.videoWorker.tick();
    if (world.gateway.ledger.openReservations === 0 && world.gateway.realtime.live.size === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

interface FlushHealth {
  lag_ms: number;
  dead_letters: number;
  stuck_journal_entries: number;
}

/** /readyz: its status, and the write-behind flush's health when the gateway reports it. */
async function readiness(world: World): Promise<{ status: number; text: string; flush: FlushHealth | undefined }> {
  const res = await fetch(`${world.tg.origin}/readyz`);
  const text = await res.text();
  const flush = (JSON.parse(text) as { flush?: FlushHealth }).flush;
  return { status: res.status, text, flush };
}

/** The process's resident memory after a full collection (what is held, not what is garbage). */
function residentAfterGc(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().rss;
}

export async function fuzz(world: World, options: FuzzOptions): Promise<FuzzReport> {
  const batchSize = options.batchSize ?? 64;
  const concurrency = options.concurrency ?? 16;
  const rssBound = options.rssGrowthBoundBytes ?? 300 * 1024 * 1024;
  const delayBoundMs = options.eventLoopDelayBoundMs ?? 1000;
  const { exact, failing, broken, sandbox } = world.accounts;
  const ledgerAccounts = [exact, failing, broken, sandbox].map((c) => c.accountId).concat(world.customer.accountId);
  const report: FuzzReport = { ok: true, seed: options.seed, requests: 0, sessions: 0, statuses: {}, fiveXx: 0, maxEventLoopDelayMs: 0, rssGrowthMB: 0, heapGrowthMB: 0, flush: '', durationMs: 0, timeByRoute: {}, distinct: new Map() };
  const started = Date.now();
  // the price book is read once, before requests run concurrently
  for (const model of [...CHAT_MODELS, ...EMBEDDING_MODELS, 'gpt-3.5-turbo-instruct']) await expectedCostNano(world.tg, model, { prompt: 1, completion: 1 });
  // taken at the first measurement (batch 8), not here: the gateway starts threads and fills caches
  // lazily on first use (the off-loop tokenizer alone is ~95 MB), which is a fixed cost, not growth
  let rssBaseline: number | undefined;
  let heapBaseline = 0;
  let deadLettersBefore = (await readiness(world)).flush?.dead_letters ?? 0;
  let batches = 0;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();

  async function runBatch(batch: FuzzCase[]): Promise<CaseViolation[]> {
    const violations: CaseViolation[] = [];
    const add = (c: FuzzCase, found: Violation[]) => violations.push(...found.map((v) => ({ ...v, case: c })));
    const startExact = world.gateway.ledger.balance(exact.accountId)!;
    const startFailing = world.gateway.ledger.balance(failing.accountId)!;
    let expectedDrop = 0;
    delay.reset();
    await pool(batch, concurrency, async (c) => {
      const found: Violation[] = [];
      const caseStarted = performance.now();
      if (isRealtime(c)) {
        report.sessions++;
        checkRealtime(c, await play(world, c), found);
      } else {
        const answer = await send(world, c);
        report.requests++;
        report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
        if (answer.status >= 500) report.fiveXx++;
        expectedDrop += await checkAnswer(world, c, answer, found);
      }
      add(c, found);
      report.timeByRoute[c.route] = (report.timeByRoute[c.route] ?? 0) + Math.round(performance.now() - caseStarted);
    });
    const batchRule = (rule: string, detail: string) => violations.push({ rule, detail, route: '(batch)', case: batch[0]! });

    if (!(await settled(world))) batchRule('no reservation stays open', `${world.gateway.ledger.openReservations} open, ${world.gateway.realtime.live.size} realtime session(s) live after the batch`);
    try {
      await world.gateway.sync.now();
      for (const accountId of ledgerAccounts) {
        const journal = await world.gateway.repos.ledger.sumByAccount(accountId);
        const stored = (await world.gateway.repos.accounts.get(accountId))?.balanceNano;
        const memory = world.gateway.ledger.balance(accountId);
        if (stored !== journal || memory !== journal) batchRule('balance = journal sum', `account ${accountId}: journal ${journal}, stored ${stored}, in memory ${memory}`);
        if (world.gateway.ledger.reserved(accountId) !== 0) batchRule('nothing stays reserved', `account ${accountId}: ${world.gateway.ledger.reserved(accountId)} reserved`);
      }
    } catch (error) {
      batchRule('the write-behind flush succeeds', error instanceof Error ? error.message : String(error));
    }
    const drop = startExact - world.gateway.ledger.balance(exact.accountId)!;
    if (drop !== expectedDrop) batchRule('valid requests are charged exactly the price of their usage', `charged ${drop} nano-dollars, the answers' usage prices at ${expectedDrop}`);
    if (world.gateway.ledger.balance(failing.accountId) !== startFailing) batchRule('upstream failures are not charged', `balance moved by ${startFailing - world.gateway.ledger.balance(failing.accountId)!}`);

    // a usage row is recorded just after its hold closes: a row may arrive after the flush above.
    // A flush that fails keeps the lag growing however often it runs; three flushes tell them apart
    let ready = await readiness(world);
    for (let flushes = 0; flushes < 3 && ready.flush && ready.flush.lag_ms !== 0; flushes++) {
      await world.gateway.sync.now().catch(() => undefined);
      ready = await readiness(world);
    }
    if (ready.status !== 200) batchRule('/readyz answers 200 after the batch', `${ready.status} ${ready.text}`);
    if (!ready.flush) report.flush = 'pending: /readyz reports no flush health yet';
    else {
      report.flush = 'checked in /readyz after every batch';
      if (ready.flush.lag_ms !== 0) batchRule('flush lag back to 0 after the batch', `lag ${ready.flush.lag_ms} ms`);
      if (ready.flush.stuck_journal_entries !== 0) batchRule('no journal entry stuck', `${ready.flush.stuck_journal_entries} stuck`);
      if (ready.flush.dead_letters > deadLettersBefore) batchRule('no usage row is dead-lettered', `${ready.flush.dead_letters - deadLettersBefore} new dead letter(s)`);
      deadLettersBefore = ready.flush.dead_letters;
    }

    // read before the collection below, which stops the loop itself (and is not sampled)
    const maxDelayMs = delay.max / 1e6;
    report.maxEventLoopDelayMs = Math.max(report.maxEventLoopDelayMs, Math.round(maxDelayMs));
    if (maxDelayMs > delayBoundMs) batchRule('event-loop delay bounded', `${Math.round(maxDelayMs)} ms in one batch`);
    // a full collection costs ~100 ms: resident memory is measured every 8th batch
    if (++batches % 8 === 0) {
      delay.disable();
      const resident = residentAfterGc();
      if (rssBaseline === undefined) {
        rssBaseline = resident;
        heapBaseline = process.memoryUsage().heapUsed;
      }
      const growth = resident - rssBaseline;
      delay.enable();
      report.rssGrowthMB = Math.max(report.rssGrowthMB, Math.round(growth / 1048576));
      report.heapGrowthMB = Math.max(report.heapGrowthMB, Math.round((process.memoryUsage().heapUsed - heapBaseline) / 1048576));
      if (growth > rssBound) batchRule('RSS growth bounded', `${Math.round(growth / 1048576)} MB over the 8th batch (after warm-up), after a full collection`);
    }
    world.forgetRecordings();
    world.errors.length = 0;
    return violations;
  }

  const shrinkBudget = options.shrinkBudget ?? 500;
  let shrinking = false;
  let shrinkRuns = 0;
  const property = fc.asyncProperty(fc.noBias(fc.array(anyCase, { minLength: 1, maxLength: batchSize, size: 'max' })), async (batch) => {
    if (shrinking && ++shrinkRuns > shrinkBudget) return true;
    const violations = await runBatch(batch);
    if (options.survey) {
      for (const v of violations) {
        const key = `${v.rule} | ${v.route} | ${v.status ?? ''}`;
        const entry = report.distinct.get(key);
        if (entry) entry.count++;
        else report.distinct.set(key, { count: 1, example: v });
      }
      return true;
    }
    if (violations.length > 0) {
      shrinking = true;
      throw new BatchFailure(violations);
    }
    return true;
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.runs, ...(options.path && { path: options.path }), endOnFailure: options.shrink === false, verbose: 0 });
  delay.disable();
  report.durationMs = Date.now() - started;
  if (details.failed) {
    report.ok = false;
    const error = details.errorInstance;
    const lines = [`fuzz failed: seed ${details.seed}, path "${details.counterexamplePath}" (replay: npm run fuzz -- --seed ${details.seed} --path "${details.counterexamplePath}")`, `shrunk after ${details.numShrinks} shrink(s) to a batch of ${details.counterexample?.[0]?.length ?? '?'} case(s)`];
    if (error instanceof BatchFailure) {
      const batch = details.counterexample?.[0] ?? [];
      for (const v of error.violations.slice(0, 10)) {
        // a batch-wide invariant has no one case at fault: the batch's cases are listed instead
        const at = v.route === '(batch)' ? `batch: ${batch.map((c) => `${c.route} (${c.mutation})`).join('; ')}` : `case: ${printable(v.case)}`;
        lines.push(`- ${v.rule} — ${v.route}${v.status ? ` → ${v.status}` : ''}: ${v.detail}${v.logLine ? `\n  log: ${v.logLine}` : ''}\n  ${at}`);
      }
    } else lines.push(String(error));
    report.failure = lines.join('\n');
  }
  return report;
}

/** One line of figures, for the test's output and the CLI. */
export function summary(r: FuzzReport): string {
  const statuses = Object.entries(r.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  return `seed ${r.seed}: ${r.requests} requests + ${r.sessions} realtime sessions in ${(r.durationMs / 1000).toFixed(1)} s; 5xx ${r.fiveXx}; max event-loop delay ${r.maxEventLoopDelayMs} ms; RSS growth after warm-up ${r.rssGrowthMB} MB (heap ${r.heapGrowthMB} MB) after GC; flush: ${r.flush}; statuses ${statuses}`;
}
