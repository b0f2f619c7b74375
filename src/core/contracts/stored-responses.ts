/**
 * What a dialect that keeps its answers (the Responses API's `store`, `previous_response_id`)
 * sees of the store: the stored responses its request refers to, loaded by the HTTP layer before
 * decoding and scoped to the caller's account, and a way to keep its own answer once complete
 * (written behind, off the request path).
 */

/** One item of a response's input or output, in the Responses wire shape. */
export type StoredItem = Record<string, unknown>;

export interface StoredTurn {
  id: string;
  model: string;
  /** epoch ms */
  createdAt: number;
  status: string;
  previousResponseId: string | null;
  instructions: string | null;
  /** the request's input items (references resolved), each with an id */
  input: Array<StoredItem & { id: string }>;
  output: StoredItem[];
  usage: unknown;
  /**
   * the response object's other members as the create call returned them (the request's settings
   * it echoed: tools, text, reasoning, metadata…), so GET reads the same object; null for a row
   * kept before they were
   */
  settings?: Record<string, unknown> | null;
}

/** What a request refers to in the store. */
export interface StoredRefs {
  /** response ids (`previous_response_id`): read with their chains */
  responses: readonly string[];
  /** ids of items it references (`item_reference`): the responses whose output holds them are read after `responses` */
  items: readonly string[];
}

export interface StoredResponses {
  /** the responses the route's refs named (directly or through their items) and every one before them (their `previousResponseId` chains) */
  readonly found: ReadonlyMap<string, StoredTurn>;
  /** the response holding each referenced item the store knows, by item id (its output items are indexed) */
  readonly itemOwners: ReadonlyMap<string, string>;
  /** keeps a complete answer */
  save(turn: StoredTurn): void;
}
