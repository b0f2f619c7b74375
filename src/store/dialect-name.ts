export type DialectName = 'sqlite' | 'postgres';

/** The one place where the two databases differ in DDL: auto-increment primary keys. */
export function autoIncrementId(dialect: DialectName): 'bigserial' | 'integer' {
  return dialect === 'postgres' ? 'bigserial' : 'integer';
}
