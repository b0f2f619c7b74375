// A batch crosses to the flush thread as JSON lines (src/store/json-lines.ts) and is parsed there a
// statement's worth at a time: the chunks must be the rows, in order, value for value, in the
// sizes the flush's statements are compiled for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statementChunks } from '../../src/store/flush-sql.ts';
import { jsonLines, linesOf, parsedChunks } from '../../src/store/json-lines.ts';

const row = (i: number) => [`req_${i}`, i, i % 3 ? null : `line\nbreak "${i}" \\ é 🙂\u2028`, { nested: [i, `,${i}]`] }];

test('parsedChunks: the rows in order, value for value, in the chunks statementChunks makes', () => {
  for (let n = 0; n <= 200; n++) {
    const rows = Array.from({ length: n }, (_, i) => row(i));
    const lines = jsonLines(rows.map((values) => JSON.stringify(values)));
    const chunks = [...parsedChunks<unknown[]>(lines)];
    assert.deepEqual(chunks.map((chunk) => chunk.length), statementChunks(rows).map((part) => part.length), `${n} rows`);
    assert.deepEqual(chunks.flat(), rows, `${n} rows`);
  }
});

test('the text holds one line a row; linesOf gives each row its own text back', () => {
  const encoded = Array.from({ length: 70 }, (_, i) => JSON.stringify(row(i)));
  const lines = jsonLines(encoded);
  assert.equal(lines.count, 70);
  assert.equal(Buffer.from(lines.bytes).toString('utf8').split('\n').length, 70, 'a newline inside a value stays escaped');
  assert.deepEqual(linesOf(lines), encoded);
  assert.deepEqual(linesOf(jsonLines([])), []);
  assert.deepEqual([...parsedChunks(jsonLines([]))], []);
});
