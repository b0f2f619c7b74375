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
  /** the response object's other members (the request's settings it echoed), null when not kept (rows before 009) */
  settings?: Record<string, unknown> | null;
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

// Rows per INSERT: 13 columns each stays far below PostgreSQL's 65,535 bound parameters.
const INSERT_BATCH = 500;
// Item ids per index read or write: one statement per 1,000 references (3,000 parameters at most)
const ITEM_BATCH = 1_000;
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
      // a retried batch finds its items there already (written after the responses, so an item never names a missing response)
      const items = responses.flatMap(itemRows);
      for (let at = 0; at < items.length; at += ITEM_BATCH) {
        await db.insertInto('response_items').values(items.slice(at, at + ITEM_BATCH)).onConflict((oc) => oc.columns(['response_id', 'item_id']).doNothing()).execute();
      }
    },

    /**
     * The account's live responses whose output holds each of `itemIds`, by item id: one read per
     * 1,000 ids. An id in several responses (an upstream that reuses its call ids) names the newest.
     */
    async itemOwners(accountId: string, itemIds: readonly string[], now = Date.now()): Promise<Map<string, string>> {
      const owners = new Map<string, string>();
      const ids = [...new Set(itemIds)];
      for (let at = 0; at < ids.length; at += ITEM_BATCH) {
        const rows = await db
          .selectFrom('response_items')
          .innerJoin('responses', 'responses.id', 'response_items.response_id')
          .select(['response_items.item_id', 'response_items.response_id'])
          .where('response_items.account_id', '=', accountId)
          .where('response_items.item_id', 'in', ids.slice(at, at + ITEM_BATCH))
          .where('responses.expires_at', '>', now)
          .orderBy('responses.created_at')
          .orderBy('responses.id')
          .execute();
        for (const row of rows) owners.set(row.item_id, row.response_id);
      }
      return owners;
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
      await db.deleteFrom('response_items').where('response_id', '=', id).where('account_id', '=', accountId).execute();
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

    /** Deletes rows past their expiry, and their items, in batches (no long lock on a big table); returns how many responses. */
    async deleteExpired(now = Date.now(), batch = DELETE_BATCH): Promise<number> {
      let deleted = 0;
      for (;;) {
        const ids = (await db.selectFrom('responses').select('id').where('expires_at', '<=', now).limit(batch).execute()).map((row) => row.id);
        if (ids.length === 0) return deleted;
        await db.deleteFrom('response_items').where('response_id', 'in', ids).execute();
        const result = await db.deleteFrom('responses').where('id', 'in', ids).executeTakeFirst();
        deleted += Number(result.numDeletedRows);
        if (ids.length < batch) return deleted;
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
    settings_json: response.settings === null || response.settings === undefined ? null : JSON.stringify(response.settings),
  };
}

/** the index rows of a response's output items (each id once) */
function itemRows(response: StoredResponse): Array<{ response_id: string; item_id: string; account_id: string }> {
  const ids = new Set(response.output.map((item) => item.id).filter((id): id is string => typeof id === 'string'));
  return [...ids].map((id) => ({ response_id: response.id, item_id: id, account_id: response.accountId }));
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
    settings: row.settings_json === null ? null : (JSON.parse(row.settings_json) as Record<string, unknown>),
  };
}
