import { LineBuffer } from './json-lines.ts';
import { encodeUsageRow, entryLines, usageLines, usageList, type LedgerEntry, type QueuedUsageRow, type WriteBatch } from './ledger-rows.ts';
import type { NewUsageRow } from './schema.ts';

/** A batch as the queue hands it over (its key touches are the state sync's). */
export type QueuedBatch = Omit<WriteBatch, 'touches'>;

/**
 * The writes waiting for the next flush, in order. For a flusher that takes encoded rows (the flush
 * thread) the entries' JSON and the usage rows' texts wait as lines outside V8's heap (LineBuffer):
 * a saturated gateway queues thousands of rows for a quarter of a second or more, and as strings
 * each was copied by two scavenges and promoted. The entries stay objects as well: the ledger
 * reconciles them once their batch is written.
 */
export class QueuedWrites {
  private entries: LedgerEntry[] = [];
  private usage: QueuedUsageRow[] = [];
  private readonly encodedEntries: LineBuffer | undefined;
  private readonly usageLines: LineBuffer | undefined;

  /** `encoded`: entries come with their JSON and usage rows as their encodeUsageRow text */
  constructor(encoded: boolean) {
    if (!encoded) return;
    this.encodedEntries = new LineBuffer();
    this.usageLines = new LineBuffer();
  }

  get rows(): number {
    return this.entries.length + (this.usageLines?.count ?? this.usage.length);
  }

  /** `json`: the entry's JSON, when the queue is encoded */
  addEntry(entry: LedgerEntry, json: string | undefined): void {
    this.entries.push(entry);
    if (this.encodedEntries) this.encodedEntries.push(json ?? JSON.stringify(entry));
  }

  /** `logged`: the row's text as the settlement log keeps it (the row must not change after it): queued as it is, when the queue is encoded */
  addUsage(row: NewUsageRow, logged: string | undefined): void {
    if (this.usageLines) this.usageLines.push(logged ?? encodeUsageRow(row));
    else this.usage.push(row);
  }

  /** Everything queued, as one batch; the queue starts empty. */
  take(): QueuedBatch {
    const batch: QueuedBatch = { entries: this.entries, usage: this.usageLines?.take() ?? this.usage };
    if (this.encodedEntries) batch.encodedEntries = this.encodedEntries.take();
    this.entries = [];
    this.usage = [];
    return batch;
  }

  /** The batch of the last take is done with (written, or put back): its buffers are reused. */
  done(batch: QueuedBatch): void {
    if (batch.encodedEntries) this.encodedEntries?.reuse(batch.encodedEntries);
    if (!Array.isArray(batch.usage)) this.usageLines?.reuse(batch.usage);
  }

  /** A batch the database could not take goes back ahead of what was queued since. */
  putBack(batch: QueuedBatch): void {
    this.entries.unshift(...batch.entries);
    if (this.encodedEntries) this.encodedEntries.prepend(batch.encodedEntries ?? entryLines(batch.entries));
    if (this.usageLines) this.usageLines.prepend(usageLines(batch.usage));
    else this.usage.unshift(...usageList(batch.usage));
  }

  /** Entries to retry, first. */
  putBackEntries(entries: readonly LedgerEntry[]): void {
    this.entries.unshift(...entries);
    this.encodedEntries?.prepend(entryLines(entries));
  }
}
