// How the gateway opens an SQLite file (src/store/sqlite-file.ts), on the main thread and on the flush thread alike.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openSqliteFile } from '../../src/store/sqlite-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-sqlite-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('WAL with NORMAL sync, foreign keys on, and statement journals in memory rather than temporary files', () => {
  const database = openSqliteFile(join(dir, 'a.db'));
  try {
    const pragma = (name: string) => Object.values(database.prepare(`PRAGMA ${name}`).get()!)[0];
    assert.equal(pragma('journal_mode'), 'wal');
    assert.equal(pragma('synchronous'), 1); // NORMAL
    assert.equal(pragma('foreign_keys'), 1);
    assert.equal(pragma('temp_store'), 2); // MEMORY: a flush's upserts wrote their statement journals page by page to temporary files
    assert.equal(pragma('busy_timeout'), 5000);
  } finally {
    database.close();
  }
});
