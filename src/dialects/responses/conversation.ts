import type { StoredItem, StoredRefs, StoredResponses, StoredTurn } from '../../core/contracts/stored-responses.ts';
import { invalidRequest } from '../../core/errors.ts';
import { responseOfItem } from './response-object.ts';

type Json = Record<string, unknown>;

/** What a request refers to in the store: its `previous_response_id` and the items it references (the store finds the responses holding them). */
export function storedRefs(body: Json): StoredRefs {
  const items: string[] = [];
  if (Array.isArray(body.input)) {
    for (const item of body.input as Json[]) if (item.type === 'item_reference' && typeof item.id === 'string') items.push(item.id);
  }
  return { responses: typeof body.previous_response_id === 'string' ? [body.previous_response_id] : [], items };
}

/** Whether the request continues stored items (`previous_response_id`, any item reference): only the IR rebuilds those. */
export function continuesStored(body: Json): boolean {
  return typeof body.previous_response_id === 'string' || (Array.isArray(body.input) && (body.input as Json[]).some((item) => item.type === 'item_reference'));
}

/**
 * The request's input as items: a string is one user message; item references are replaced by
 * the stored items they name. A reference to a reasoning item (`rs_`, which clients send back for
 * a stored answer) is dropped unread, as reasoning items are: no other vendor can use them.
 */
export function inputItems(body: Json, stored: StoredResponses | undefined): Json[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return ((body.input ?? []) as Json[]).flatMap((item, i) => {
    if (item.type !== 'item_reference') return [item];
    if (typeof item.id === 'string' && item.id.startsWith('rs_')) return [];
    const found = typeof item.id === 'string' ? findItem(stored, item.id) : undefined;
    if (!found) throw invalidRequest(`Item with id '${String(item.id)}' not found.`, `input[${i}].id`);
    return [found];
  });
}

/** the item in the response the store's index names (else, for a message of this gateway, the one its id names) */
function findItem(stored: StoredResponses | undefined, id: string): StoredItem | undefined {
  const owner = stored?.itemOwners?.get(id);
  for (const ref of owner === undefined ? responseOfItem(id) : [owner]) {
    const turn = stored?.found.get(ref);
    const item = turn?.output.find((candidate) => candidate.id === id) ?? turn?.input.find((candidate) => candidate.id === id);
    if (item) return item;
  }
  return undefined;
}

/** The items of the conversation `previous_response_id` continues, oldest first: each stored turn's input, then its output. */
export function priorItems(body: Json, stored: StoredResponses | undefined): Json[] {
  const id = body.previous_response_id;
  if (typeof id !== 'string') return [];
  const chain: StoredTurn[] = [];
  for (let at: string | null = id; at !== null && chain.length < MAX_CHAIN; ) {
    const turn: StoredTurn | undefined = stored?.found.get(at);
    if (!turn) {
      if (at === id) throw invalidRequest(`Previous response with id '${id}' not found.`, 'previous_response_id', 'previous_response_not_found');
      break;
    }
    chain.push(turn);
    at = turn.previousResponseId;
  }
  return chain.reverse().flatMap((turn) => [...turn.input, ...turn.output]);
}

/** The turn to store for a complete `response`: the request's input items, each given an id (after the response's), and the answer's output. */
export function turnOf(response: Json, body: Json, input: readonly Json[]): StoredTurn {
  const base = String(response.id).slice('resp_'.length);
  return {
    id: String(response.id),
    model: String(response.model),
    createdAt: Number(response.created_at) * 1000,
    status: String(response.status),
    previousResponseId: typeof body.previous_response_id === 'string' ? body.previous_response_id : null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    input: input.map((item, i) => ({ ...(item.type === undefined && { type: 'message' }), ...item, id: typeof item.id === 'string' ? item.id : `${ITEM_PREFIX[String(item.type ?? 'message')] ?? 'item_'}${base}_in${i}` })),
    output: response.output as StoredItem[],
    usage: response.usage,
    settings: settingsOf(response),
  };
}

/** the members of the response object kept in no column of their own: what GET adds back (the request's settings it echoed) */
function settingsOf(response: Json): Json {
  const { id: _id, object: _object, created_at: _created, status: _status, model: _model, output: _output, usage: _usage, instructions: _instructions, previous_response_id: _previous, ...settings } = response;
  return settings;
}

const ITEM_PREFIX: Readonly<Record<string, string>> = { message: 'msg_', function_call: 'fc_', function_call_output: 'fco_', reasoning: 'rs_' };

/** Turns a conversation is rebuilt from at most (the HTTP layer loads no more). */
export const MAX_CHAIN = 1_000;
