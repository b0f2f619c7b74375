import { chunkSizes } from './flush-sql.ts';

// Rows as JSON text, one a line: how a batch crosses to the flush thread. One string is one object
// to clone and to keep; the thread parses the rows a statement's worth at a time, so only the rows
// of the statement being run are alive as objects. A batch held whole through its transaction
// outlived the thread's scavenges and was promoted, row by row (~650 KB a scavenge saturated).
// No query builder here: the flush thread loads this module (src/store/flush-worker.ts).

export interface JsonLines {
  /** the rows' JSON, joined by "\n" (JSON text never holds a raw newline) */
  text: string;
  count: number;
}

export function jsonLines(rows: readonly string[]): JsonLines {
  return { text: rows.join('\n'), count: rows.length };
}

/** The rows parsed, in the sizes of statementChunks, each chunk when it is reached. */
export function* parsedChunks<T>(lines: JsonLines): Generator<T[]> {
  const { text } = lines;
  let start = 0;
  for (const size of chunkSizes(lines.count)) {
    let end = start;
    for (let i = 0; i < size; i++) {
      const newline = text.indexOf('\n', end);
      end = newline === -1 ? text.length + 1 : newline + 1;
    }
    yield JSON.parse(`[${text.slice(start, end - 1).replaceAll('\n', ',')}]`) as T[];
    start = end;
  }
}

/** Every row's JSON, in order. */
export function linesOf(lines: JsonLines): string[] {
  return lines.count === 0 ? [] : lines.text.split('\n');
}
