import type { Kysely } from 'kysely';
import type { Database, ResponseRow } from '../schema.ts';

/** One item of a response's input or output, in the Responses wire shape (JSON). */
export type ResponseItem = Record<string, unknown>;
/** An input item as stored: the dialect gives every one an id (`msg_…`, `fc_…`), which pages the list. */
export type StoredInputItem = ResponseItem & { id: string };

export interface StoredResponse {
  id: string;
  accountId: string;
  keyId: string | null;
  model: string;
  /** epoch ms */
  createdAt: number;
  /** epoch ms: the row reads as gone from then on and is deleted by `deleteExpired` */
  expiresAt: number;
  status: string;
  previousResponseId: string | null;
  /** the request's `instructions` (a string or items), null when none */
  instructions: unknown;
  input: StoredInputItem[];
  output: ResponseItem[];
  /** the response's `usage` object, null when the vendor reported none */
  usage: unknown;
}

export interface InputItemsQuery {
  /** an item id: the page starts after it (in `order`) */
  after?: string;
  /** 1–100, default 20 (the vendor's bounds) */
  limit?: number;
  /** default `desc` (newest first), as the vendor lists them */
  order?: 'asc' | 'desc';
}

export interface InputItemsPage {
  data: StoredInputItem[];
  firstId: string | null;
  lastId: string | null;
  hasMore: boolean;
}

// Rows per INSERT: 12 columns each stays far below PostgreSQL's 65,535 bound parameters.
const INSERT_BATCH = 500;
const DELETE_BATCH = 1_000;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

/**
 * Stored responses, always scoped to the account that created them: another account's id reads
 * as not found. Writes come in batches (`insertMany`) so the dialect can hand them to the
 * write-behind flush instead of writing on the request path; an id written twice (a retried
 * batch) keeps its first row.
 */
export function responsesRepository(db: Kysely<Database>) {
  return {
    async insertMany(responses: readonly StoredResponse[]): Promise<void> {
      for (let at = 0; at < responses.length; at += INSERT_BATCH) {
        const rows = responses.slice(at, at + INSERT_BATCH).map(toRow);
        await db.insertInto('responses').values(rows).onConflict((oc) => oc.column('id').doNothing()).execute();
      }
    },

    async insert(response: StoredResponse): Promise<void> {
      await this.insertMany([response]);
    },

    /** undefined when missing, expired or another account's */
    async get(accountId: string, id: string, now = Date.now()): Promise<StoredResponse | undefined> {
      const row = await db
        .selectFrom('responses')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row && fromRow(row);
    },

    /** false when there was nothing of this account's to delete */
    async delete(accountId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('responses').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** one page of a response's input items; undefined when the response is not found (see `get`) */
    async listInputItems(accountId: string, id: string, query: InputItemsQuery = {}, now = Date.now()): Promise<InputItemsPage | undefined> {
      const row = await db
        .selectFrom('responses')
        .select('input_json')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (!row) return undefined;
      return pageOf(JSON.parse(row.input_json) as StoredInputItem[], query);
    },

    /** Deletes rows past their expiry in batches (no long lock on a big table); returns how many. */
    async deleteExpired(now = Date.now(), batch = DELETE_BATCH): Promise<number> {
      let deleted = 0;
      for (;;) {
        const result = await db
          .deleteFrom('responses')
          .where('id', 'in', (eb) => eb.selectFrom('responses').select('id').where('expires_at', '<=', now).limit(batch))
          .executeTakeFirst();
        const n = Number(result.numDeletedRows);
        deleted += n;
        if (n < batch) return deleted;
      }
    },
  };
}

export type ResponsesRepository = ReturnType<typeof responsesRepository>;

/** The expiry of a response created at `createdAt` under a retention of `days`. */
export function responseExpiry(createdAt: number, days: number): number {
  return createdAt + days * 24 * 3_600_000;
}

function pageOf(items: readonly StoredInputItem[], query: InputItemsQuery): InputItemsPage {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  const limit = Math.min(MAX_PAGE, Math.max(1, query.limit ?? DEFAULT_PAGE));
  // an `after` that names no item starts nowhere: an empty page, not the first one again
  const start = query.after === undefined ? 0 : ordered.findIndex((item) => item.id === query.after) + 1 || ordered.length;
  const data = ordered.slice(start, start + limit);
  return { data, firstId: data[0]?.id ?? null, lastId: data.at(-1)?.id ?? null, hasMore: start + limit < ordered.length };
}

function toRow(response: StoredResponse): ResponseRow {
  return {
    id: response.id,
    account_id: response.accountId,
    key_id: response.keyId,
    model: response.model,
    created_at: response.createdAt,
    expires_at: response.expiresAt,
    status: response.status,
    previous_response_id: response.previousResponseId,
    instructions_json: response.instructions === null || response.instructions === undefined ? null : JSON.stringify(response.instructions),
    input_json: JSON.stringify(response.input),
    output_json: JSON.stringify(response.output),
    usage_json: response.usage === null || response.usage === undefined ? null : JSON.stringify(response.usage),
  };
}

function fromRow(row: ResponseRow): StoredResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    model: row.model,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    status: row.status,
    previousResponseId: row.previous_response_id,
    instructions: row.instructions_json === null ? null : (JSON.parse(row.instructions_json) as unknown),
    input: JSON.parse(row.input_json) as StoredInputItem[],
    output: JSON.parse(row.output_json) as ResponseItem[],
    usage: row.usage_json === null ? null : (JSON.parse(row.usage_json) as unknown),
  };
}
