// Kysely's PostgreSQL introspector reads the columns of every schema in the database, and calls
// pg_get_serial_sequence on each: a table or column another session drops at that moment (another
// gateway's schema, a test suite's) fails the query with "… does not exist", and with it the
// migrator, which asks whether its own tables exist. This one reads the store's schema only.
import { PostgresDialect, sql, type ColumnMetadata, type DatabaseIntrospector, type DatabaseMetadataOptions, type Kysely, type PostgresDialectConfig, type SchemaMetadata, type TableMetadata } from 'kysely';

interface ColumnRow {
  table: string;
  kind: string;
  column: string | null;
  type: string | null;
  type_schema: string | null;
  not_null: boolean | null;
  has_default: boolean | null;
  auto_incrementing: boolean | null;
  description: string | null;
}

class SchemaIntrospector implements DatabaseIntrospector {
  private readonly db: Kysely<unknown>;
  private readonly schema: string;

  constructor(db: Kysely<unknown>, schema: string) {
    this.db = db;
    this.schema = schema;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows;
  }

  async getTables(options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as table, c.relkind as kind, a.attname as column, typ.typname as type, tns.nspname as type_schema,
        a.attnotnull as not_null, a.atthasdef as has_default,
        (a.attidentity <> '' or pg_catalog.pg_get_expr(d.adbin, d.adrelid) like 'nextval(%') as auto_incrementing,
        pg_catalog.col_description(c.oid, a.attnum) as description
      from pg_catalog.pg_class c
        join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
        left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        left join pg_catalog.pg_type typ on typ.oid = a.atttypid
        left join pg_catalog.pg_namespace tns on tns.oid = typ.typnamespace
        left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
      where ns.nspname = ${this.schema} and c.relkind in ('r', 'v', 'p', 'f')
      order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
    for (const row of rows) {
      if (!options?.withInternalKyselyTables && (row.table === 'kysely_migration' || row.table === 'kysely_migration_lock')) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: this.schema, isView: row.kind === 'v', isForeign: row.kind === 'f', columns: [] };
        tables.set(row.table, table);
      }
      if (row.column === null) continue;
      table.columns.push({
        name: row.column,
        dataType: row.type ?? '',
        ...(row.type_schema !== null && { dataTypeSchema: row.type_schema }),
        isNullable: !row.not_null,
        hasDefaultValue: Boolean(row.has_default),
        isAutoIncrementing: Boolean(row.auto_incrementing),
        ...(row.description !== null && { comment: row.description }),
      });
    }
    return [...tables.values()];
  }
}

/** Kysely's PostgreSQL dialect, introspecting one schema only. */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  private readonly schema: string;

  constructor(config: PostgresDialectConfig, schema: string) {
    super(config);
    this.schema = schema;
  }

  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaIntrospector(db, this.schema);
  }
}
