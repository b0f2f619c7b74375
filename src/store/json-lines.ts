import { chunkSizes } from './flush-sql.ts';
import { bufferView } from '../core/buffer-view.ts';

// Rows as JSON text, one a line, in UTF-8 bytes: how the write-behind queues encoded rows
// (LineBuffer) and how a batch crosses to the flush thread. Queued rows wait a flush cycle or more,
// past two scavenges: held as strings they were copied and then promoted into the old generation,
// row by row (~0.5 KB a request saturated), to be freed only by a full GC; held here they are
// outside V8's heap. The thread parses them a statement's worth at a time, so only the rows of the
// statement being run are alive as objects there.
// No query builder here: the flush thread loads this module (src/store/flush-worker.ts).

export interface JsonLines {
  /** the rows' JSON in UTF-8, joined by "\n" (JSON text never holds a raw newline) */
  bytes: Uint8Array;
  count: number;
}

const NEWLINE = 0x0a;

export function jsonLines(rows: readonly string[]): JsonLines {
  return { bytes: Buffer.from(rows.join('\n')), count: rows.length };
}

/**
 * Lines appended one at a time into a buffer that grows as needed; taken whole for a flush. Two
 * buffers take turns: the one taken is handed back (reuse) once its batch is done with, so a
 * steady load allocates none (a new one every flush counted against V8's external-memory limit
 * and brought on full GCs).
 */
export class LineBuffer {
  private bytes: Buffer;
  private used = 0;
  private lines = 0;
  /** the buffer handed out by the last take, and the one waiting to be written into next */
  private lent: ArrayBufferLike | undefined;
  private spare: Buffer | undefined;

  constructor(capacity = 16 * 1024) {
    this.bytes = Buffer.allocUnsafeSlow(capacity);
  }

  get count(): number {
    return this.lines;
  }

  push(line: string): void {
    // UTF-8 takes at most 3 bytes a UTF-16 unit
    this.reserve(line.length * 3 + 1);
    if (this.lines > 0) this.bytes[this.used++] = NEWLINE;
    this.used += this.bytes.write(line, this.used);
    this.lines++;
  }

  /** `lines` put back before those pushed since (a batch the database could not take, or entries to retry) */
  prepend(lines: JsonLines): void {
    if (lines.count === 0) return;
    const rest = this.bytes.subarray(0, this.used);
    const joined = Buffer.allocUnsafeSlow(Math.max(this.bytes.length, lines.bytes.length + 1 + this.used));
    joined.set(lines.bytes, 0);
    let at = lines.bytes.length;
    if (this.lines > 0) {
      joined[at++] = NEWLINE;
      joined.set(rest, at);
      at += rest.length;
    }
    this.bytes = joined;
    this.used = at;
    this.lines += lines.count;
  }

  /** The lines so far; the buffer starts empty again (the other one: the taken bytes belong to the batch until reuse). */
  take(): JsonLines {
    const taken = { bytes: this.bytes.subarray(0, this.used), count: this.lines };
    this.lent = this.bytes.buffer;
    this.bytes = this.spare ?? Buffer.allocUnsafeSlow(this.bytes.length);
    this.spare = undefined;
    this.used = 0;
    this.lines = 0;
    return taken;
  }

  /** The lines of the last take are no longer read (written, or put back): their buffer is written into next. */
  reuse(lines: JsonLines): void {
    const buffer = lines.bytes.buffer;
    if (buffer !== this.lent) return;
    this.lent = undefined;
    this.spare = Buffer.from(buffer, 0, buffer.byteLength);
  }

  private reserve(more: number): void {
    if (this.used + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + more));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}

/**
 * The rows parsed, in the sizes of statementChunks, each chunk when it is reached: decoded from
 * the bytes a chunk at a time too (the whole batch as one string outlived the flush's scavenges).
 */
export function* parsedChunks<T>(lines: JsonLines): Generator<T[]> {
  const bytes = bufferView(lines.bytes);
  let start = 0;
  for (const size of chunkSizes(lines.count)) {
    let end = start;
    for (let i = 0; i < size; i++) {
      const newline = bytes.indexOf(NEWLINE, end);
      end = newline === -1 ? bytes.length + 1 : newline + 1;
    }
    yield JSON.parse(`[${bytes.toString('utf8', start, end - 1).replaceAll('\n', ',')}]`) as T[];
    start = end;
  }
}

/** Every row's JSON, in order. */
export function linesOf(lines: JsonLines): string[] {
  return lines.count === 0 ? [] : textOf(lines).split('\n');
}

function textOf(lines: JsonLines): string {
  return bufferView(lines.bytes).toString('utf8');
}
