// The flush thread's own SQLite connection beside another one on the same file (the main thread's).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openSqliteFile } from '../../src/store/sqlite-file.ts';
import { sqliteFlushConnection } from '../../src/store/sqlite-flush-connection.ts';

const dir = mkdtempSync(join(tmpdir(), 'modelgate-flush-connection-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a flush's transaction holds the write lock from its start: another connection's write waits for it, never the other way round", async () => {
  const path = join(dir, 'lock.db');
  const other = openSqliteFile(path);
  const flushing = openSqliteFile(path);
  try {
    other.exec('create table t (id integer primary key autoincrement, k text unique); PRAGMA busy_timeout = 20');
    const connection = sqliteFlushConnection(flushing);
    let refused: unknown;
    await connection.transaction(async () => {
      // before any statement of the flush: a flush that read first and wrote after this commit
      // would be refused (its snapshot stale), where this one only has to wait
      try {
        other.exec("insert into t (k) values ('other')");
      } catch (error) {
        refused = error;
      }
      flushing.exec("insert into t (k) values ('flush')");
    });
    assert.match(String(refused), /locked|busy/i);
    other.exec("insert into t (k) values ('other')");
    assert.deepEqual(other.prepare('select k from t order by id').all().map((row) => row.k), ['flush', 'other']);
  } finally {
    flushing.close();
    other.close();
  }
});
