// Makes the database itself refuse some rows, the way a constraint the gateway cannot foresee
// would: a usage row whose model is REFUSED_MODEL, and a journal note that is not plain ASCII.
// The rows are valid for the gateway; only the database says no (a CHECK on PostgreSQL, a
// trigger's RAISE(ABORT) on SQLite: both are constraint errors).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.ts';

export const REFUSED_MODEL = 'refused-by-the-database';

export async function installRefusals(db: Kysely<Database>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table usage_log add constraint test_refused_model check (model <> ${sql.lit(REFUSED_MODEL)})`.execute(db);
    await sql`alter table ledger add constraint test_ascii_notes check (note is null or note ~ '^[ -~]*$')`.execute(db);
    return;
  }
  await sql`create trigger test_refused_model before insert on usage_log when new.model = ${sql.lit(REFUSED_MODEL)}
    begin select raise(abort, 'usage row refused by a test constraint'); end`.execute(db);
  await sql`create trigger test_ascii_notes before insert on ledger when new.note glob '*[^ -~]*'
    begin select raise(abort, 'journal notes must be ASCII (a test constraint)'); end`.execute(db);
}
