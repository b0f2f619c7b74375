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
}

export interface StoredResponses {
  /** the responses the route's `refs` named and every one before them (their `previousResponseId` chains) */
  readonly found: ReadonlyMap<string, StoredTurn>;
  /** keeps a complete answer */
  save(turn: StoredTurn): void;
}
