import pino, { type Logger } from 'pino';
import { LineBatch } from './line-batch.ts';
import { isoTime } from './log-time.ts';

/** Lines wait in memory until they hold this many characters (or the next second) before one write(2). */
const BUFFER_CHARS = 8 * 1024;
const FLUSH_EVERY_MS = 1000;

/**
 * Structured JSON logs, one line per event. Lines are buffered and written in batches — one
 * syscall per ~8 KB or per second instead of one per request line — and flushed on shutdown;
 * a hard crash can lose at most the last second of lines. Secrets never reach a log line:
 * handlers log ids, not headers; redaction is the safety net.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  let stream = destination;
  if (!stream) {
    // a full batch reaches sonic-boom's minLength and is written at once; a remainder passed on
    // by flush or flushSync waits in sonic-boom for that flush, so flushSync writes it in place
    const batch = new LineBatch(pino.destination({ sync: false, minLength: BUFFER_CHARS }), BUFFER_CHARS);
    setInterval(() => batch.flush(), FLUSH_EVERY_MS).unref();
    // pino flushes its own destinations at exit; lines still in the batch are flushed here
    process.once('exit', () => batch.flushSync());
    stream = batch;
  }
  return pino(
    {
      level,
      base: { service: 'modelgate' },
      timestamp: isoTime,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers["x-goog-api-key"]', '*.apiKey', '*.api_key', 'apiKey', 'api_key'],
        censor: '[redacted]',
      },
    },
    stream,
  );
}

/**
 * The one line per request, in pino's own format (level, time, the logger's bindings, the
 * fields, msg) but serialised by one `JSON.stringify` and written straight to the log's
 * destination: pino's field-by-field serialiser allocated ~3 KB per line (a quoted key and a
 * concatenation per field), the largest allocation of a request. The line holds ids, names and
 * numbers only — never a header or a body — so it needs no redaction pass.
 */
export class RequestLog {
  private readonly log: Logger;
  /** the last message and its line's ending: every request writes the same one */
  private msg: string | undefined;
  private ending = '';

  constructor(log: Logger) {
    this.log = log;
  }

  write(fields: Record<string, unknown>, msg: string): void {
    if (!this.log.isLevelEnabled('info')) return;
    const log = this.log as unknown as Record<symbol, unknown>;
    const time = (log[pino.symbols.timeSym] as () => string)();
    const bindings = log[pino.symbols.chindingsSym] as string;
    const body = JSON.stringify(fields).slice(1, -1);
    const stream = log[pino.symbols.streamSym] as pino.DestinationStream;
    if (msg !== this.msg) {
      this.msg = msg;
      this.ending = `,"msg":${JSON.stringify(msg)}}\n`;
    }
    stream.write(`{"level":${pino.levels.values.info}${time}${bindings}${body === '' ? '' : `,${body}`}${this.ending}`);
  }
}

/**
 * Writes the buffered lines now, synchronously: before a banner printed beside the log (so the
 * start-up line comes first) or on the way out. Falls back to the asynchronous flush when the
 * stream cannot write synchronously (a custom destination, a write already under way).
 */
export function flushLogSync(log: Logger): void {
  const stream = (log as unknown as Record<symbol, { flushSync?: () => void } | undefined>)[pino.symbols.streamSym];
  try {
    if (stream?.flushSync) stream.flushSync();
    else log.flush();
  } catch {
    log.flush();
  }
}
