import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AccountRecord } from './repositories/accounts.ts';
import { accountsRepository } from './repositories/accounts.ts';
import type { ApiKeyRecord } from './repositories/api-keys.ts';
import { apiKeysRepository } from './repositories/api-keys.ts';
import { encodeUsageRow, ledgerRepository, type KeyTouch, type LedgerEntry, type WriteBatch } from './repositories/ledger.ts';
import type { ModelOverrideRecord } from './repositories/model-overrides.ts';
import { modelOverridesRepository } from './repositories/model-overrides.ts';
import type { ProviderRecord } from './repositories/providers.ts';
import { providersRepository } from './repositories/providers.ts';
import type { Flusher } from './flusher.ts';
import type { Database, NewUsageRow } from './schema.ts';

/** Where changes land in memory. */
export interface SyncListener {
  provider(record: ProviderRecord): void;
  account(record: AccountRecord): void;
  apiKey(record: ApiKeyRecord): void;
  modelOverride(record: ModelOverrideRecord): void;
  /** a batch of journal entries is in the database now */
  flushed(entries: LedgerEntry[], written: Set<string>): void;
}

/**
 * The only link between the request path and the database. Writes (journal, usage, key
 * last-use) queue in memory and go out in one transaction per cycle; each cycle then pulls
 * every row changed since the last one (on any instance) into memory. Cycles never overlap.
 */
export class StateSync {
  private readonly db: Kysely<Database>;
  private readonly listener: SyncListener;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private batch: Omit<WriteBatch, 'touches'> = { entries: [], usage: [] };
  /** each key's latest use since the last flush: one entry per key, whatever the number of its requests */
  private lastUse = new Map<string, number>();
  private lastSeq = 0;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly flusher: Flusher;

  /** `flusher`: where batches are written (default: in place, on this connection) */
  constructor(db: Kysely<Database>, listener: SyncListener, log: Logger, intervalMs: number, flusher?: Flusher) {
    this.db = db;
    this.listener = listener;
    this.log = log;
    this.intervalMs = intervalMs;
    const repository = ledgerRepository(db);
    this.flusher = flusher ?? { flush: (batch) => repository.flush(batch), close: async () => undefined };
  }

  enqueue(entry: LedgerEntry): void {
    this.batch.entries.push(entry);
  }

  recordUsage(row: NewUsageRow): void {
    this.batch.usage.push(this.flusher.takesEncodedUsage ? encodeUsageRow(row) : row);
  }

  touchKey(keyId: string, lastUsedAt: number): void {
    const known = this.lastUse.get(keyId);
    if (known === undefined || lastUsedAt > known) this.lastUse.set(keyId, lastUsedAt);
  }

  get pendingWrites(): number {
    return this.batch.entries.length + this.batch.usage.length;
  }

  /** Loads everything, then keeps cycling in the background. */
  async start(): Promise<void> {
    await this.now();
    this.timer = setInterval(() => {
      if (this.running) return;
      // a failed cycle is logged and retried on the next tick; it must never crash the process
      this.now().catch((error: unknown) => this.log.error({ err: error }, 'state sync cycle failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Runs a full cycle (after any running one): pending writes are durable and changes applied when it resolves. */
  now(): Promise<void> {
    const next = this.chain.then(() => this.cycle());
    this.chain = next.catch(() => undefined);
    return next;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try {
      await this.now();
    } finally {
      await this.flusher.close();
    }
  }

  private async cycle(): Promise<void> {
    this.running = true;
    try {
      await this.flush();
      await this.poll();
    } finally {
      this.running = false;
    }
  }

  private async flush(): Promise<void> {
    const { entries, usage } = this.batch;
    const lastUse = this.lastUse;
    if (entries.length === 0 && usage.length === 0 && lastUse.size === 0) return;
    this.batch = { entries: [], usage: [] };
    this.lastUse = new Map();
    const touches: KeyTouch[] = Array.from(lastUse, ([keyId, lastUsedAt]) => ({ keyId, lastUsedAt }));
    const batch: WriteBatch = { entries, usage, touches };
    try {
      const { written } = await this.flusher.flush(batch);
      this.listener.flushed(batch.entries, written);
    } catch (error) {
      // keep the writes, in order, ahead of anything queued meanwhile; the next cycle retries
      this.batch = { entries: [...entries, ...this.batch.entries], usage: [...usage, ...this.batch.usage] };
      for (const touch of touches) this.touchKey(touch.keyId, touch.lastUsedAt);
      this.log.error({ err: error, pending: this.pendingWrites }, 'write-behind flush failed; will retry');
      throw error;
    }
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
