import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AccountRecord } from './repositories/accounts.ts';
import { accountsRepository } from './repositories/accounts.ts';
import type { ApiKeyRecord } from './repositories/api-keys.ts';
import { apiKeysRepository } from './repositories/api-keys.ts';
import { deadLettersRepository } from './repositories/dead-letters.ts';
import { encodeUsageRow, type KeyTouch, type LedgerEntry, type WriteBatch } from './repositories/ledger.ts';
import type { ModelOverrideRecord } from './repositories/model-overrides.ts';
import { modelOverridesRepository } from './repositories/model-overrides.ts';
import type { ProviderRecord } from './repositories/providers.ts';
import { providersRepository } from './repositories/providers.ts';
import { inPlaceFlusher, type Flusher } from './flusher.ts';
import { QueuedWrites } from './queued-writes.ts';
import { RowGuard } from './row-guard.ts';
import type { FlushOutcome } from './flush-isolation.ts';
import type { Database, NewUsageRow } from './schema.ts';

/**
 * A usage row logged with its charge (enqueue) carries the text it was logged as, under a symbol
 * (no column, and JSON leaves it out): recordUsage of the same row queues that text. A WeakMap
 * from row to text cost every request an ephemeron-table insert, and the scavenger an ephemeron
 * to trace for each row still young.
 */
const loggedAs = Symbol('usage row as logged');
type LoggedUsageRow = NewUsageRow & { [loggedAs]?: string };

/** Where changes land in memory. */
export interface SyncListener {
  provider(record: ProviderRecord): void;
  account(record: AccountRecord): void;
  apiKey(record: ApiKeyRecord): void;
  modelOverride(record: ModelOverrideRecord): void;
  /** a batch of journal entries is in the database now */
  flushed(entries: LedgerEntry[], written: Set<string>): void;
  /** entries flushed earlier are now part of what this instance has seen: every change up to `seenSeq` */
  visible?(entries: LedgerEntry[], seenSeq: number): void;
}

/** How the write-behind is doing, for /readyz and /metrics. */
export interface FlushHealth {
  /** age of the oldest journal entry or usage row not yet in the database (0: none waiting) */
  lagMs: number;
  /** journal entries and usage rows not yet in the database: queued, or in the flush under way */
  pending: number;
  /** usage rows in dead_letters: those there when this instance started, plus those it added */
  deadLetters: number;
  /** journal entries the database refused even sanitised, kept in memory and retried */
  stuckEntries: number;
  /** flushes that failed because the database was unavailable (each retried with backoff) */
  failedFlushes: number;
}

/**
 * Admission waits for the write-behind once its oldest unwritten row is this old while the database
 * takes writes (StateSync.backlog).
 */
export const BACKLOG_LIMIT_MS = 2_000;
/**
 * Or once this many rows wait (queued and in the flush under way; a charged request is two): the
 * queue's memory. Saturated on one core ~2 s of rows was ~17,500; held to ~0.5 s, the peak RSS fell
 * ~30 MB at the same throughput (docs/benchmarks.md). At 1,200 requests a second ~600 wait.
 */
export const BACKLOG_LIMIT_ROWS = 8_192;
/**
 * The longest a request waits for it: a flush that hangs (a lock held elsewhere) without failing
 * slows admission, never stops it.
 */
export const BACKLOG_MAX_WAIT_MS = 1_000;

/** the longest wait between two attempts of a flush that failed because the database was unavailable */
const MAX_RETRY_DELAY_MS = 10_000;

/**
 * Where the sync makes each queued journal entry durable until its batch is committed (billing's
 * SettlementLog): `seal` when a batch is taken, `committed` once it is in the database.
 */
export interface SettlementJournal {
  /** `usage`: the charge's usage row as `encodeUsageRow` wrote it; `entryJson`: the entry's JSON, when it is encoded already */
  append(entry: LedgerEntry, usage: string | null, entryJson?: string): void;
  /**
   * Runs `fn`; what it appends is written with the other such appends of this event-loop turn,
   * in one write. The promise settles once it is written (an answer's last bytes wait for it);
   * undefined when `fn` appended nothing, or wrote in place.
   */
  grouped?(fn: () => void): Promise<void> | undefined;
  seal(): void;
  committed(): void;
  close(): void;
}

/**
 * The only link between the request path and the database. Writes (journal, usage, key
 * last-use) queue in memory and go out in one transaction per cycle; each cycle then pulls
 * every row changed since the last one (on any instance) into memory. Cycles never overlap.
 *
 * Rows are fitted to their columns when they are queued (RowGuard). A row the database still
 * refuses is set aside by the flush (flushIsolating: a usage row to dead_letters, a journal
 * entry written with a sanitised note, or kept here and retried), so the rest of its batch is
 * written. When the database is unavailable the whole batch stays queued and is retried with
 * backoff; the committed state is still pulled in, so readers (refresh) answer from it.
 */
export class StateSync {
  private readonly db: Kysely<Database>;
  private readonly listener: SyncListener;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly queue: QueuedWrites;
  /** each key's latest use since the last flush: one entry per key, whatever the number of its requests */
  private lastUse = new Map<string, number>();
  private lastSeq = 0;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly flusher: Flusher;
  private readonly guard: RowGuard;
  /** when the oldest write of `batch` was queued (0: none), and that of the batch being flushed */
  private queuedSince = 0;
  private flushingSince = 0;
  /** rows of the batch being flushed */
  private flushingRows = 0;
  /** consecutive flushes failed on an unavailable database, and when the next may run */
  private failures = 0;
  private retryAt = 0;
  private deadLetters = 0;
  private stuck = 0;
  private failedFlushes = 0;
  /** see backlog(); tests shorten it */
  backlogLimitMs = BACKLOG_LIMIT_MS;
  /** see backlog(); tests lower it */
  backlogLimitRows = BACKLOG_LIMIT_ROWS;
  /** what admission waits on while backlogged: settled when the flush under way (or the next) ends, or after BACKLOG_MAX_WAIT_MS */
  private drained: PromiseWithResolvers<void> | undefined;
  /** entries committed whose change this instance has not polled back yet */
  private committedUnseen: LedgerEntry[] = [];
  /** where every queued journal entry is appended before it waits for the flush (none: in memory only) */
  settlementLog: SettlementJournal | undefined;

  /** `flusher`: where batches are written (default: in place, on this connection) */
  constructor(db: Kysely<Database>, listener: SyncListener, log: Logger, intervalMs: number, flusher?: Flusher) {
    this.db = db;
    this.listener = listener;
    this.log = log;
    this.intervalMs = intervalMs;
    this.flusher = flusher ?? inPlaceFlusher(db);
    this.queue = new QueuedWrites(this.flusher.takesEncodedRows === true);
    this.guard = new RowGuard((column, problem) => this.log.warn({ column, problem }, 'a value did not fit its column and was adjusted (reported once)'));
  }

  /** `usage`: the call's usage row, kept in the settlement log only (replayed if the process dies) */
  enqueue(entry: LedgerEntry, usage: NewUsageRow | null = null): void {
    // fitted to its columns in place, first: the ledger applies the amount after this (Ledger.apply)
    this.guard.entry(entry);
    if (this.queuedSince === 0) this.queuedSince = Date.now();
    let encoded: string | null = null;
    if (usage && this.settlementLog) {
      // the log's usage row too: a structure in a text column would be encoded whole (or overflow the stack) there
      this.guard.usage(usage);
      encoded = encodeUsageRow(usage);
      (usage as LoggedUsageRow)[loggedAs] = encoded;
    }
    // encoded once, for the log and the flush thread alike
    const entryJson = this.flusher.takesEncodedRows ? JSON.stringify(entry) : undefined;
    this.settlementLog?.append(entry, encoded, entryJson);
    this.queue.addEntry(entry, entryJson);
  }

  /**
   * Queues a usage row, first fitted to its columns in place. A row logged with its charge
   * (enqueue) was fitted and encoded then, and is queued as logged: it must not change in between.
   */
  recordUsage(row: NewUsageRow): void {
    const logged = (row as LoggedUsageRow)[loggedAs];
    if (logged === undefined) this.guard.usage(row);
    if (this.queuedSince === 0) this.queuedSince = Date.now();
    this.queue.addUsage(row, logged);
  }

  touchKey(keyId: string, lastUsedAt: number): void {
    const known = this.lastUse.get(keyId);
    if (known === undefined || lastUsedAt > known) this.lastUse.set(keyId, lastUsedAt);
  }

  get pendingWrites(): number {
    return this.queue.rows;
  }

  /** rows not yet written: queued, and in the flush under way */
  private get waitingRows(): number {
    return this.pendingWrites + this.flushingRows;
  }

  /**
   * Something to wait on before admitting more work when the write-behind has fallen behind: its
   * oldest unwritten row is older than `backlogLimitMs`, or `backlogLimitRows` rows wait, while
   * the database takes writes. On one saturated core the flush thread (below the event loop) got
   * less CPU than the rows needed, and the queue — and the memory it holds — grew for as long as
   * the load lasted; waiting lets the event loop go idle and the flush catch up. Settles when the
   * flush under way (or the next) ends, or after BACKLOG_MAX_WAIT_MS. undefined otherwise, and
   * while the database is unavailable: the queue is there to ride that out.
   */
  backlog(): Promise<void> | undefined {
    if (this.failures > 0) return undefined;
    const since = this.flushingSince !== 0 ? this.flushingSince : this.queuedSince;
    if (since === 0) return undefined;
    if (Date.now() - since < this.backlogLimitMs && this.waitingRows < this.backlogLimitRows) return undefined;
    if (!this.drained) {
      const drained = (this.drained = Promise.withResolvers<void>());
      setTimeout(() => {
        if (this.drained === drained) this.drained = undefined;
        drained.resolve();
      }, BACKLOG_MAX_WAIT_MS).unref();
    }
    return this.drained.promise;
  }

  /** the change counter up to which this instance has applied every committed change */
  get seenSeq(): number {
    return this.lastSeq;
  }

  health(): FlushHealth {
    const since = this.flushingSince === 0 ? this.queuedSince : this.queuedSince === 0 ? this.flushingSince : Math.min(this.flushingSince, this.queuedSince);
    return {
      lagMs: since === 0 ? 0 : Math.max(0, Date.now() - since),
      pending: this.waitingRows,
      deadLetters: this.deadLetters,
      stuckEntries: this.stuck,
      failedFlushes: this.failedFlushes,
    };
  }

  /** Loads everything, then keeps cycling in the background. */
  async start(): Promise<void> {
    this.deadLetters = await deadLettersRepository(this.db).count();
    await this.now();
    this.timer = setInterval(() => {
      if (this.running) return;
      // a failed cycle is logged and retried on the next tick; it must never crash the process
      this.refresh().catch((error: unknown) => this.log.error({ err: error }, 'state sync cycle failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  /**
   * Runs a full cycle (after any running one): pending writes are durable and changes applied
   * when it resolves. Rejects when the writes could not be flushed: for callers that promise
   * durability (a credit); readers use refresh().
   */
  now(): Promise<void> {
    return this.run(true);
  }

  /**
   * Runs a full cycle for a reader: pending writes are flushed if the database takes them (not
   * while a failed flush waits for its retry), and changes are pulled in either way. Rejects only
   * when the database cannot be read, never because a flush failed: answers come from what is
   * committed.
   */
  refresh(): Promise<void> {
    return this.run(false);
  }

  private run(durable: boolean): Promise<void> {
    const next = this.chain.then(() => this.cycle(durable));
    this.chain = next.catch(() => undefined);
    return next;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try {
      await this.now();
      // everything logged is committed: a clean stop leaves nothing to replay
      this.settlementLog?.close();
    } finally {
      await this.flusher.close();
    }
  }

  /** `durable`: flush even while a failed flush waits for its retry, and reject when the flush fails */
  private async cycle(durable: boolean): Promise<void> {
    this.running = true;
    try {
      let failure: unknown;
      if (durable || Date.now() >= this.retryAt) {
        try {
          await this.flush();
        } catch (error) {
          failure = error ?? new Error('flush failed');
        }
      }
      // the committed state is pulled in even when the flush failed
      await this.poll();
      if (this.committedUnseen.length > 0) {
        const entries = this.committedUnseen;
        this.committedUnseen = [];
        this.listener.visible?.(entries, this.lastSeq);
      }
      if (failure !== undefined && durable) throw failure;
    } finally {
      this.running = false;
    }
  }

  private async flush(): Promise<void> {
    const lastUse = this.lastUse;
    const rows = this.queue.rows;
    if (rows === 0 && lastUse.size === 0) return;
    const queued = this.queue.take();
    const { entries } = queued;
    this.lastUse = new Map();
    this.flushingSince = this.queuedSince;
    this.flushingRows = rows;
    this.queuedSince = 0;
    this.settlementLog?.seal();
    const touches: KeyTouch[] = Array.from(lastUse, ([keyId, lastUsedAt]) => ({ keyId, lastUsedAt }));
    const batch: WriteBatch = { ...queued, touches };
    try {
      const outcome = await this.flusher.flush(batch);
      this.failures = 0;
      this.retryAt = 0;
      this.setAside(outcome);
      // entries refused even sanitised are not in the database: kept (never dropped), not reconciled
      const stuck = outcome.stuck.length === 0 ? undefined : new Set(outcome.stuck.map((entry) => entry.entryKey));
      this.listener.flushed(stuck ? batch.entries.filter((entry) => !stuck.has(entry.entryKey)) : batch.entries, outcome.written);
      this.settlementLog?.committed();
      // entries still waiting stay in the log (their old segment is gone) and stay pending elsewhere
      for (const entry of outcome.stuck) this.settlementLog?.append(entry, null);
      if (this.listener.visible) for (const entry of entries) if (!stuck?.has(entry.entryKey)) this.committedUnseen.push(entry);
    } catch (error) {
      // the database is unavailable: keep the writes, in order, ahead of anything queued
      // meanwhile, and retry the whole batch after a backoff (nothing is set aside for this)
      this.queue.putBack(queued);
      for (const touch of touches) this.touchKey(touch.keyId, touch.lastUsedAt);
      this.queuedSince = this.flushingSince;
      this.failures++;
      this.failedFlushes++;
      const delay = Math.min(this.intervalMs * 2 ** Math.min(this.failures - 1, 16), MAX_RETRY_DELAY_MS);
      this.retryAt = Date.now() + delay;
      this.log.error({ err: error, pending: this.pendingWrites, retryInMs: delay }, 'write-behind flush failed; will retry');
      throw error;
    } finally {
      this.queue.done(queued);
      this.flushingSince = 0;
      this.flushingRows = 0;
      // the requests held by backlog() go on (each waits once); later ones wait for the next flush if it is still behind
      const drained = this.drained;
      this.drained = undefined;
      drained?.resolve();
    }
  }

  /** One log line per row the database refused; entries refused even sanitised go back to the queue, first. */
  private setAside(outcome: FlushOutcome): void {
    for (const letter of outcome.deadLettered) {
      this.deadLetters++;
      this.log.error({ requestId: letter.rowKey, error: letter.error }, 'usage row refused by the database; moved to dead_letters');
    }
    for (const entry of outcome.sanitised) this.log.warn({ entryKey: entry.entryKey, error: entry.error }, 'journal entry refused by the database; written with a sanitised note');
    // logged when the count changes (the entries are retried every cycle; the gauge stays up meanwhile)
    const changed = outcome.stuck.length !== this.stuck;
    this.stuck = outcome.stuck.length;
    if (this.stuck === 0) return;
    if (changed) {
      for (const entry of outcome.stuck) {
        this.log.error({ entryKey: entry.entryKey, accountId: entry.accountId, amountNano: entry.amountNano }, 'journal entry refused by the database even sanitised; kept in memory and retried');
      }
    }
    this.queue.putBackEntries(outcome.stuck);
    this.queuedSince = this.queuedSince === 0 ? this.flushingSince : Math.min(this.queuedSince, this.flushingSince);
  }

  /**
   * Reads the change counter first, then rows with lastSeq < seq <= counter: a writer holds the
   * counter's row lock until it commits, so no change at or below the counter can appear later.
   */
  private async poll(): Promise<void> {
    const meta = await this.db.selectFrom('meta').select('value').where('name', '=', 'seq').executeTakeFirstOrThrow();
    const upTo = meta.value;
    if (upTo <= this.lastSeq) return;
    const since = this.lastSeq;
    const [providers, overrides, accounts, keys] = await Promise.all([
      providersRepository(this.db).changedSince(since),
      modelOverridesRepository(this.db).changedSince(since),
      accountsRepository(this.db).changedSince(since),
      apiKeysRepository(this.db).changedSince(since),
    ]);
    const inRange = <T extends { seq: number }>(rows: T[]) => rows.filter((r) => r.seq <= upTo);
    for (const record of inRange(providers)) this.listener.provider(record);
    for (const record of inRange(overrides)) this.listener.modelOverride(record);
    for (const record of inRange(accounts)) this.listener.account(record);
    for (const record of inRange(keys)) this.listener.apiKey(record);
    this.lastSeq = upTo;
  }
}
