import { CompiledQuery, type Compilable } from 'kysely';
import type { Template as BoundTemplate } from './flush-sql.ts';

/** A row whose every column is given (undefined would not mean the column's default here). */
export type CompleteRow<Columns extends string> = Record<Columns, unknown>;

/** A row's values in the statement's column order. */
export type RowValues = readonly unknown[];

export { statementChunks } from './flush-sql.ts';

interface Template {
  sql: string;
  /** for each parameter of `sql`, in order: row index × column count + column index */
  slots: Int32Array;
}

/**
 * A multi-row statement compiled once per row count, then reused with new values. Kysely builds
 * an immutable node per value and compiles the whole tree on every call: a write-behind flush of
 * ~300 rows made ~8,000 frozen nodes and multi-kilobyte SQL texts four times a second (11 % of
 * the gateway's CPU at 1,100 requests/s). The template is compiled from rows whose values are
 * their own positions, so the compiled parameters say where each real value goes; the SQL still
 * comes from the query builder, in the connection's dialect. Rows come as arrays of values in
 * column order: reading them by position costs nothing, where a lookup by column name in the hot
 * loop was megamorphic (a third of the flush thread's time).
 */
export class RowStatement<Columns extends string, Result = unknown> {
  private readonly templates = new Map<number, Template>();
  private readonly columns: readonly Columns[];
  private readonly build: (rows: CompleteRow<Columns>[]) => Compilable<Result>;

  constructor(columns: readonly Columns[], build: (rows: CompleteRow<Columns>[]) => Compilable<Result>) {
    this.columns = columns;
    this.build = build;
  }

  /** The statement for `count` rows as data (flush-sql.ts: bound by `bind`, sent to the flush thread). */
  template(count: number): BoundTemplate {
    const { sql, slots } = this.templates.get(count) ?? this.prepare(count);
    return { sql, slots, constants: [], width: this.columns.length };
  }

  /** The statement for these rows (values in column order); null or undefined is bound as SQL NULL. */
  compile(rows: readonly RowValues[]): CompiledQuery<Result> {
    const template = this.templates.get(rows.length) ?? this.prepare(rows.length);
    const width = this.columns.length;
    const parameters = new Array<unknown>(template.slots.length);
    for (let k = 0; k < parameters.length; k++) {
      const slot = template.slots[k]!;
      parameters[k] = rows[(slot / width) | 0]![slot % width] ?? null;
    }
    return CompiledQuery.raw(template.sql, parameters) as CompiledQuery<Result>;
  }

  private prepare(count: number): Template {
    const width = this.columns.length;
    const positions: CompleteRow<Columns>[] = [];
    for (let i = 0; i < count; i++) {
      const row = {} as CompleteRow<Columns>;
      this.columns.forEach((column, j) => (row[column] = i * width + j));
      positions.push(row);
    }
    const { sql, parameters } = this.build(positions).compile();
    const slots = Int32Array.from(parameters as number[]);
    // every value must be bound exactly once, and nothing else: a literal or an extra parameter
    // in the statement would shift the values into the wrong columns
    const seen = new Set(slots);
    if (slots.length !== count * width || seen.size !== slots.length || slots.some((slot, k) => slot !== parameters[k] || slot < 0 || slot >= count * width)) {
      throw new Error(`RowStatement: the statement must bind each of the ${count * width} row values once as a parameter`);
    }
    const template = { sql, slots };
    this.templates.set(count, template);
    return template;
  }
}
