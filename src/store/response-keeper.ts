import type { StoredRefs, StoredTurn } from '../core/contracts/stored-responses.ts';
import { responseExpiry, type InputItemsPage, type InputItemsQuery, type ResponsesRepository, type StoredResponse } from './repositories/responses.ts';

export interface ResponseKeeperOptions {
  retentionDays: number;
  /** how long a kept answer waits before its batch is written */
  flushDelayMs?: number;
  /** how often expired rows are deleted */
  sweepIntervalMs?: number;
  /** the most stored responses one request may read (its `previous_response_id` chain and the responses its item references name, together) */
  maxChain?: number;
  onError?: (err: unknown, what: string) => void;
}

/**
 * The Responses dialect's stored answers: kept off the request path (a write-behind batch written
 * with `insertMany` shortly after, and on `stop`, so a graceful shutdown loses none), read back
 * scoped to the account (a batch not yet written is written first, so a client reads its own
 * answer at once), and deleted once past the retention (swept on a timer).
 */
export class ResponseKeeper {
  private readonly repo: ResponsesRepository;
  private readonly options: Required<Omit<ResponseKeeperOptions, 'onError'>> & Pick<ResponseKeeperOptions, 'onError'>;
  private pending = new Map<string, StoredResponse>();
  private flushTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(repo: ResponsesRepository, options: ResponseKeeperOptions) {
    this.repo = repo;
    this.options = { flushDelayMs: 200, sweepIntervalMs: 3_600_000, maxChain: 1_000, ...options };
  }

  start(): void {
    this.sweepTimer = setInterval(() => void this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  /** writes what is pending; later saves are still written by a further flush */
  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flush();
  }

  save(accountId: string, keyId: string | null, turn: StoredTurn): void {
    const expiresAt = responseExpiry(turn.createdAt, this.options.retentionDays);
    this.pending.set(turn.id, { ...turn, accountId, keyId, expiresAt });
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, this.options.flushDelayMs);
  }

  /** Writes the pending batch (after any write under way); a failed batch stays pending for the next flush. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.repo.insertMany([...batch.values()]);
      } catch (err) {
        for (const [id, row] of batch) if (!this.pending.has(id)) this.pending.set(id, row);
        this.options.onError?.(err, 'storing responses');
      }
    });
    return this.writing;
  }

  /**
   * The account's stored responses `refs` name — directly, or as the holders of the items it
   * references (found in the item index, one read per 1,000 ids) — and every one before them in
   * their chains.
   */
  async load(accountId: string, refs: StoredRefs): Promise<{ found: Map<string, StoredTurn>; itemOwners: Map<string, string> }> {
    const found = new Map<string, StoredTurn>();
    let itemOwners = new Map<string, string>();
    if (refs.items.length > 0) {
      // an answer kept a moment ago may still be pending: its items are indexed once it is written.
      // Only then is the batch written early: a reference to anything else must not cut the batching short
      await (this.pendingHoldsItem(accountId, refs.items) ? this.flush() : this.writing);
      itemOwners = await this.repo.itemOwners(accountId, refs.items);
    }
    // one budget of reads for the whole request: 10,000 item references must not become 10,000
    // sequential lookups (an unread reference is answered 400 "not found" by the decoder)
    let reads = 0;
    for (const first of new Set([...refs.responses, ...itemOwners.values()])) {
      for (let id: string | null = first; id !== null && !found.has(id) && reads < this.options.maxChain; ) {
        await this.flushIfPending([id]);
        reads++;
        const row = await this.repo.get(accountId, id);
        if (!row) break;
        found.set(id, { ...row, instructions: typeof row.instructions === 'string' ? row.instructions : null });
        id = row.previousResponseId;
      }
    }
    return { found, itemOwners };
  }

  async get(accountId: string, id: string): Promise<StoredResponse | undefined> {
    await this.flushIfPending([id]);
    return this.repo.get(accountId, id);
  }

  async listInputItems(accountId: string, id: string, query: InputItemsQuery): Promise<InputItemsPage | undefined> {
    await this.flushIfPending([id]);
    return this.repo.listInputItems(accountId, id, query);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    await this.flushIfPending([id]);
    return this.repo.delete(accountId, id);
  }

  /** deletes expired rows; how many */
  async sweep(now = Date.now()): Promise<number> {
    try {
      return await this.repo.deleteExpired(now);
    } catch (err) {
      this.options.onError?.(err, 'deleting expired responses');
      return 0;
    }
  }

  /** whether a pending answer of the account holds one of the item ids */
  private pendingHoldsItem(accountId: string, itemIds: readonly string[]): boolean {
    const wanted = new Set(itemIds);
    for (const row of this.pending.values()) {
      if (row.accountId === accountId && row.output.some((item) => typeof item.id === 'string' && wanted.has(item.id))) return true;
    }
    return false;
  }

  /** a row read back is written first: pending, or in the batch being written */
  private async flushIfPending(ids: readonly string[]): Promise<void> {
    await (ids.some((id) => this.pending.has(id)) ? this.flush() : this.writing);
  }
}
