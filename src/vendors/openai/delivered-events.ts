/** middle bytes are kept in segments of this size */
const SEGMENT_BYTES = 1024;
const NOTHING = Buffer.alloc(0);
/** how far short of the last event's shared start and end the next one is first compared */
const MARGIN = 8;

/**
 * What a stream delivered, kept until it ends in case it must be counted (a stream the client
 * abandoned, one without usage): every event's data, losslessly, in a fraction of its size.
 *
 * The chunks of one stream are alike — the same id, object, created, model and fingerprint
 * before the delta, the same `"finish_reason":null…` after it — so each event is kept as the
 * length of the start and of the end it shares with the event before it, plus the bytes in
 * between: ~20–40 bytes of a ~300-byte chat chunk. Keeping the events whole held their size for
 * as long as the stream was open (and, kept as their network chunks, ~800 bytes of RSS each:
 * ~45 KB per stream of the open-streams bench); a real stream sends dozens of chunks a second.
 *
 * Read back in order only (rare: a count), by rebuilding each event from the one before.
 *
 * The events of the network chunk being relayed are only noted (where they are in it) and
 * encoded when the relay is done with that chunk (`settle`): a stream that ends with its usage
 * in the same chunk (a short answer from a fast upstream can come whole in one read) is never
 * encoded, and its log never read. Encoding cost ~100 thousand instructions a 24-event stream (2026-12-01).
 */
export class DeliveredEvents {
  /** per event: shared start, shared end, length of its own bytes in between */
  private readonly shape: number[] = [];
  /** the events' own bytes, back to back across segments */
  private readonly segments: Buffer[] = [];
  private used = SEGMENT_BYTES;
  /**
   * The last event, whole, where it came (its network chunk, not copied): what the next one is
   * compared with. One chunk per stream is held, not one per event.
   */
  private last: Buffer = NOTHING;
  private lastStart = 0;
  private lastEnd = 0;
  /** where addText encodes its events */
  private readonly scratch: [Buffer, Buffer] = [NOTHING, NOTHING];
  /** the shared start and end lengths to check first (the last event's, less MARGIN) */
  private head = 0;
  private tail = 0;

  /** the network chunk whose events are noted, not yet encoded, and their [start, end) pairs */
  private pendingChunk: Buffer = NOTHING;
  private readonly pending: number[] = [];

  get count(): number {
    return this.shape.length / 3 + this.pending.length / 2;
  }

  /**
   * An event's data as bytes: bytes[start, end) of the network chunk being relayed, not changed
   * afterwards. Noted until `settle` (or another chunk's event, or a read) encodes it.
   */
  add(bytes: Buffer, start: number, end: number): void {
    if (bytes !== this.pendingChunk) {
      this.settle();
      this.pendingChunk = bytes;
    }
    this.pending.push(start, end);
  }

  /** The relay is done with the chunk: its noted events are encoded, and the chunk no longer held for them. */
  settle(): void {
    const chunk = this.pendingChunk;
    const pending = this.pending;
    for (let i = 0; i < pending.length; i += 2) this.encode(chunk, pending[i]!, pending[i + 1]!);
    pending.length = 0;
    this.pendingChunk = NOTHING;
  }

  /** bytes[start, end) as the next event: the start and end it shares with the last one, and its own bytes. */
  private encode(bytes: Buffer, start: number, end: number): void {
    const last = this.last;
    const lastStart = this.lastStart;
    const lastEnd = this.lastEnd;
    const length = end - start;
    const most = Math.min(length, lastEnd - lastStart);
    // the shared start and end found last time, short of the delta's bytes (MARGIN), most often
    // hold again: each is checked with one memcmp, then extended byte by byte; else found byte by byte
    let head = Math.min(this.head, most);
    if (head > 0 && bytes.compare(last, lastStart, lastStart + head, start, start + head) !== 0) head = 0;
    while (head < most && bytes[start + head] === last[lastStart + head]) head++;
    let tail = Math.min(this.tail, most - head);
    if (tail > 0 && bytes.compare(last, lastEnd - tail, lastEnd, end - tail, end) !== 0) tail = 0;
    while (tail < most - head && bytes[end - 1 - tail] === last[lastEnd - 1 - tail]) tail++;
    this.head = Math.max(0, head - MARGIN);
    this.tail = Math.max(0, tail - MARGIN);
    this.shape.push(head, tail, length - head - tail);
    this.append(bytes, start + head, end - tail);
    this.last = bytes;
    this.lastStart = start;
    this.lastEnd = end;
  }

  /**
   * An event's data as text (decoded to look into it, or changed): encoded into one of two
   * buffers in turn — the other holds the last event — rather than a new buffer per event.
   */
  addText(text: string): void {
    // in order: the events noted before it first
    this.settle();
    const slot = this.last === this.scratch[0] ? 1 : 0;
    let scratch = this.scratch[slot];
    // most events fit at a glance (a UTF-16 unit is 3 bytes at most); a larger one is measured, and
    // the buffer sized to its bytes: it is kept until the stream ends, and an event (an image's data
    // URL) may be megabytes — 3× that, twice over, per stream
    if (scratch.length < 3 * text.length) {
      const bytes = Buffer.byteLength(text);
      if (scratch.length < bytes) this.scratch[slot] = scratch = Buffer.allocUnsafeSlow(Math.max(512, bytes));
    }
    this.encode(scratch, 0, scratch.write(text));
  }

  /** The last event's data, or undefined before any. */
  lastText(): string | undefined {
    const pending = this.pending;
    if (pending.length > 0) return this.pendingChunk.toString('utf8', pending.at(-2), pending.at(-1));
    return this.count === 0 ? undefined : this.last.toString('utf8', this.lastStart, this.lastEnd);
  }

  /** Every event's data, oldest first. */
  forEach(visit: (data: string) => void): void {
    this.settle();
    let previous = Buffer.alloc(0);
    let segment = 0;
    let offset = 0;
    for (let i = 0; i < this.shape.length; i += 3) {
      const head = this.shape[i]!;
      const tail = this.shape[i + 1]!;
      let own = this.shape[i + 2]!;
      const event = Buffer.allocUnsafe(head + own + tail);
      previous.copy(event, 0, 0, head);
      let at = head;
      while (own > 0) {
        if (offset === SEGMENT_BYTES) {
          segment++;
          offset = 0;
        }
        const n = Math.min(own, SEGMENT_BYTES - offset);
        this.segments[segment]!.copy(event, at, offset, offset + n);
        at += n;
        offset += n;
        own -= n;
      }
      previous.copy(event, at, previous.length - tail);
      visit(event.toString('utf8'));
      previous = event;
    }
  }

  /** bytes[start, end) to the segments, byte by byte: a few dozen bytes, where a native copy costs more */
  private append(bytes: Buffer, start: number, end: number): void {
    let segment = this.segments.at(-1);
    let used = this.used;
    for (let i = start; i < end; i++) {
      if (used === SEGMENT_BYTES) {
        // not pooled: an allocUnsafe slice would hold its whole 8-KB pool slab
        segment = Buffer.allocUnsafeSlow(SEGMENT_BYTES);
        this.segments.push(segment);
        used = 0;
      }
      segment![used++] = bytes[i]!;
    }
    this.used = used;
  }
}
