import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { usageRowOfValues } from '../store/ledger-rows.ts';
import type { LedgerEntry } from '../store/repositories/ledger.ts';
import type { NewUsageRow } from '../store/schema.ts';
import type { SettlementJournal } from '../store/state-sync.ts';

/** One line of the log: a journal entry and, for a call's charge, the call's usage row. */
export interface LoggedSettlement {
  entry: LedgerEntry;
  usage: NewUsageRow | null;
}

/** What a dead process left: its settlements, and the files to delete once they are committed. */
export interface Orphans {
  /** the dead process's log owner id (its shared-holds instance id too) */
  owner: string;
  settlements: LoggedSettlement[];
  /** unparsable lines skipped (a line torn by a machine crash, never by a process kill) */
  skipped: number;
  discard(): void;
}

/**
 * The write-behind's durability between two flushes. Every journal entry this process applies is
 * appended here, one JSON line, written before the answer it charges ends; the database still gets
 * its entries in batches. The charges of HTTP answers (`grouped`) are written together, one write(2)
 * per event-loop turn (at once for an answer alone in its turn), their answers' last bytes held
 * until it returned; others (a realtime response, a video job) with a write(2) of their own. A
 * write that returned is in the kernel's page cache, which outlives a killed process (kill -9, an
 * OOM kill, a crash of Node): only a machine crash or power loss can take it, and `fsync`
 * (MODELGATE_SETTLEMENT_LOG_FSYNC) closes that too at the price of a disk flush per charge.
 *
 * The log is a series of segment files per process, `s_<db>_<host>_<pid>_<start>_<rand>_<n>.jsonl`
 * (`db`: a hash of the database URL, so that a directory shared by gateways of several databases
 * replays each file into its own database).
 * When the state sync takes a batch, the current segment is sealed (`seal`); once the batch is
 * committed, every sealed segment is deleted (`committed`): a failed flush keeps its entries queued
 * and its segments on disk until a later flush commits them. At start, the segments of processes
 * that are gone are replayed (`orphans`): a process is gone when no process of that pid runs on
 * this host, or one does with another start time (pid reuse). The directory must be local to the
 * machine: a file named after another host is left alone, since its owner's life cannot be judged
 * from here. No lock file: the owner's identity is in the name, and replay is idempotent (journal
 * entry keys and usage request ids are unique in the database), so two processes replaying the
 * same orphan at once write each row once.
 */
export class SettlementLog implements SettlementJournal {
  readonly owner: string;
  private readonly dir: string;
  private readonly fsync: boolean;
  private fd: number | undefined;
  private segment = 0;
  private readonly sealed: number[] = [];
  /** lines of grouped appends not yet written, and the promise their answers wait on */
  private pending: string[] = [];
  private pendingWritten: Promise<void> | undefined;
  /** when the last grouped append was made (ms, `now`'s clock): an answer long after it is alone in its turn */
  private lastGroupedAt = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;
  private readonly aloneAfterMs: number;
  private grouping = false;
  private readonly onGroupError: (error: unknown) => void;

  private readonly scope: string;

  /**
   * `database`: the database URL the entries are bound for (only its hash is kept).
   * `onGroupError`: a grouped write failed (the disk): its answers go out, their charges wait in
   * the write-behind queue alone. `aloneAfterMs`, `now`: see `grouped` (tests set them).
   */
  constructor(dir: string, database: string, options: { fsync?: boolean; onGroupError?: (error: unknown) => void; aloneAfterMs?: number; now?: () => number } = {}) {
    this.dir = dir;
    this.fsync = options.fsync ?? false;
    this.onGroupError = options.onGroupError ?? (() => undefined);
    this.aloneAfterMs = options.aloneAfterMs ?? ALONE_AFTER_MS;
    this.now = options.now ?? performance.now.bind(performance);
    this.scope = createHash('sha256').update(database).digest('hex').slice(0, 10);
    mkdirSync(dir, { recursive: true });
    this.owner = ownerId(process.pid, startTimeOf(process.pid), randomBytes(4).toString('hex'));
  }

  /**
   * One synchronous append (~a few µs: a write into the page cache). `usage`: the charge's usage
   * row as `encodeUsageRow` wrote it (its values in column order), kept as `v`. `entryJson`: the
   * entry's JSON, when the caller has encoded it already.
   */
  append(entry: LedgerEntry, usage: string | null, entryJson = JSON.stringify(entry)): void {
    const line = usage === null ? `{"e":${entryJson}}\n` : `{"e":${entryJson},"v":${usage}}\n`;
    if (this.grouping) {
      this.pending.push(line);
      return;
    }
    // in order: the lines of this turn's groups first
    this.writePending();
    this.write(line);
  }

  /**
   * Appends made by `fn` wait for the end of this event-loop turn, then are written with the
   * turn's other groups in one write(2) (and one fdatasync with MODELGATE_SETTLEMENT_LOG_FSYNC):
   * the returned promise settles after it. A saturated gateway settles several answers a turn;
   * a write apiece was its largest function of its own (~3.6 µs a request under perf).
   *
   * An answer settled more than `aloneAfterMs` after the previous one, with no group waiting, is
   * taken to be alone in its turn (a gateway that idles between answers): its lines are written at
   * once and nothing is returned — a group of one costs a setImmediate, a promise and a turn of
   * the answer's own for the same single write(2). Guessed wrong, a turn has two writes instead of one.
   */
  grouped(fn: () => void): Promise<void> | undefined {
    const before = this.pending.length;
    this.grouping = true;
    try {
      fn();
    } finally {
      this.grouping = false;
    }
    if (this.pending.length === before) return undefined;
    const now = this.now();
    const alone = this.pendingWritten === undefined && now - this.lastGroupedAt > this.aloneAfterMs;
    this.lastGroupedAt = now;
    if (alone) {
      this.writeGroup();
      return undefined;
    }
    return (this.pendingWritten ??= new Promise((resolve) =>
      setImmediate(() => {
        this.writeGroup();
        resolve();
      }),
    ));
  }

  /**
   * The grouped lines not yet written. A failed write is reported, never thrown: the answers still
   * go out, their charges queued for the database, only not logged.
   */
  private writeGroup(): void {
    try {
      this.writePending();
    } catch (error) {
      this.onGroupError(error);
    }
  }

  /** A batch is being taken: what was appended so far is in it (or in an earlier one still queued). */
  seal(): void {
    this.writePending();
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    this.sealed.push(this.segment++);
  }

  /** The batch taken at the last `seal` (and any earlier one kept for retry) is in the database. */
  committed(): void {
    for (const segment of this.sealed.splice(0)) unlinkQuietly(this.path(segment));
  }

  /** Clean shutdown, after the last flush committed: nothing left to replay. */
  close(): void {
    this.pending = [];
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.sealed.push(this.segment++);
    this.committed();
  }

  /** The logs of processes that are gone, one set per dead owner, oldest segment first. */
  orphans(log: Logger): Orphans[] {
    const byOwner = new Map<string, Array<{ name: string; segment: number }>>();
    for (const name of readdirSync(this.dir)) {
      const parsed = parseName(name);
      if (!parsed || parsed.scope !== this.scope || parsed.owner === this.owner || !isGone(parsed)) continue;
      const files = byOwner.get(parsed.owner) ?? [];
      files.push({ name, segment: parsed.segment });
      byOwner.set(parsed.owner, files);
    }
    const result: Orphans[] = [];
    for (const [owner, files] of byOwner) {
      files.sort((a, b) => a.segment - b.segment);
      const settlements: LoggedSettlement[] = [];
      let skipped = 0;
      for (const file of files) {
        for (const line of readFileSync(join(this.dir, file.name), 'utf8').split('\n')) {
          if (line === '') continue;
          try {
            // `v`: the usage row's values; `u`: the row object, as logs written before 2026-11-28 keep it
            const parsed = JSON.parse(line) as { e: LedgerEntry; v?: unknown[]; u?: NewUsageRow };
            settlements.push({ entry: parsed.e, usage: parsed.v ? usageRowOfValues(parsed.v) : (parsed.u ?? null) });
          } catch {
            skipped++;
          }
        }
      }
      if (skipped > 0) log.warn({ owner, skipped }, 'settlement log: unreadable lines skipped');
      result.push({ owner, settlements, skipped, discard: () => files.forEach((f) => unlinkQuietly(join(this.dir, f.name))) });
    }
    return result;
  }

  private write(text: string): void {
    const fd = (this.fd ??= openSync(this.path(this.segment), 'a'));
    writeSync(fd, text);
    if (this.fsync) fdatasyncSync(fd);
  }

  /** The grouped lines not yet written, in one write (a waiting group's promise settles after it). */
  private writePending(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingWritten = undefined;
    this.write(text);
  }

  private path(segment: number): string {
    return join(this.dir, `s_${this.scope}_${this.owner}_${segment}.jsonl`);
  }
}

/**
 * An answer this long after the previous one is taken to be alone in its turn (`grouped`). Measured
 * in the bench (64 connections): saturated, 8 % of the answers were; against a 50-ms upstream a
 * third (the rest came in bursts, 2.1 a turn), and alone at one connection, every one.
 */
const ALONE_AFTER_MS = 0.25;

const HOST = hostname().replaceAll('_', '-');

function ownerId(pid: number, start: string, rand: string): string {
  return `${HOST}_${pid}_${start}_${rand}`;
}

function parseName(name: string): { scope: string; owner: string; host: string; pid: number; start: string; segment: number } | undefined {
  if (!name.startsWith('s_') || !name.endsWith('.jsonl')) return undefined;
  const parts = name.slice(2, -'.jsonl'.length).split('_');
  if (parts.length !== 6) return undefined;
  const [scope, host, pid, start, rand, segment] = parts as [string, string, string, string, string, string];
  if (!/^\d+$/.test(pid) || !/^\d+$/.test(segment)) return undefined;
  return { scope, owner: `${host}_${pid}_${start}_${rand}`, host, pid: Number(pid), start, segment: Number(segment) };
}

function isGone(owner: { host: string; pid: number; start: string }): boolean {
  if (owner.host !== HOST) return false;
  if (owner.pid === process.pid) return owner.start !== startTimeOf(process.pid);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  // a live pid: the same process only if it started when the owner did
  const start = startTimeOf(owner.pid);
  return start !== '0' && owner.start !== '0' && start !== owner.start;
}

/** The process's start time in clock ticks since boot (Linux), '0' where /proc cannot tell. */
function startTimeOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '0';
  } catch {
    return '0';
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone (another process replayed it too)
  }
}
