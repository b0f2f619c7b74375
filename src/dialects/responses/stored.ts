import type { StoredItem } from '../../core/contracts/stored-responses.ts';

/** A stored response as the store gives it back. */
export interface StoredAnswer {
  id: string;
  model: string;
  createdAt: number;
  status: string;
  previousResponseId: string | null;
  instructions: unknown;
  output: StoredItem[];
  usage: unknown;
  settings?: Record<string, unknown> | null;
}

/**
 * `GET /v1/responses/{id}`: the `response` object the create call returned (but for the cost in
 * its usage, settled after it was kept), rebuilt from what was stored; a row kept without its
 * settings reads the vendor's defaults.
 */
export function storedResponseObject(stored: StoredAnswer): Record<string, unknown> {
  return {
    id: stored.id,
    object: 'response',
    created_at: Math.floor(stored.createdAt / 1000),
    status: stored.status,
    ...(stored.settings ?? {
      background: false,
      error: null,
      incomplete_details: stored.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      store: true,
    }),
    instructions: stored.instructions ?? null,
    model: stored.model,
    output: stored.output,
    previous_response_id: stored.previousResponseId,
    usage: stored.usage ?? null,
  };
}

/** `DELETE /v1/responses/{id}` */
export function deletedResponse(id: string): Record<string, unknown> {
  return { id, object: 'response', deleted: true };
}

/** `GET /v1/responses/{id}/input_items`: one page of the list. */
export function inputItemsList(page: { data: StoredItem[]; firstId: string | null; lastId: string | null; hasMore: boolean }): Record<string, unknown> {
  return { object: 'list', data: page.data, first_id: page.firstId, last_id: page.lastId, has_more: page.hasMore };
}
