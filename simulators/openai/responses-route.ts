// The Responses API routes: POST /v1/responses (JSON or the typed event stream), and, like the
// vendor, stored responses (`store` defaults to true): GET and DELETE /v1/responses/{id},
// GET /v1/responses/{id}/input_items, and `previous_response_id` continuing a stored one. The
// store is in memory and bounded (the oldest are forgotten first).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { delay, dropConnection, sendJson } from '../_kit/http.ts';
import { newResponseId } from './endpoint.ts';
import { openAIError, scenarioError, type SimulatedError } from './errors.ts';
import { readResponsesRequest, responsesDirectiveText, type PriorTurn, type WireItem } from './responses-request.ts';
import { playResponseEvents, responseEvents } from './responses-stream.ts';
import { finalStatus, generate, outputItems, responseBody, responseUsage, type ResponseMeta } from './responses.ts';
import { planFromPromptText, planFromScenario, type Scenario } from './scenarios.ts';

interface StoredResponse extends PriorTurn {
  body: Record<string, unknown>;
}

/** The responses kept for GET, DELETE, input_items and previous_response_id. */
export class ResponsesStore {
  private readonly byId = new Map<string, StoredResponse>();
  private readonly capacity: number;
  constructor(capacity = 1_000) {
    this.capacity = capacity;
  }

  get(id: string): StoredResponse | undefined {
    return this.byId.get(id);
  }

  set(id: string, response: StoredResponse): void {
    this.byId.set(id, response);
    if (this.byId.size > this.capacity) this.byId.delete(this.byId.keys().next().value!);
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }
}

export interface ResponsesRouteContext {
  method: string;
  path: string;
  /** the query string's parameters (input_items paging) */
  query: URLSearchParams;
  body: unknown;
  headers: Record<string, string>;
  takeScenario(): Scenario | undefined;
  /** Unix seconds for `created_at` */
  createdAt: number;
  streamChunks: number;
  chunkDelayMs: number;
  signal: AbortSignal;
  store: ResponsesStore;
}

const ITEM_PATH = /^\/v1\/responses\/([^/]+)(\/input_items)?$/;

export function isResponsesPath(path: string): boolean {
  return path === '/v1/responses' || ITEM_PATH.test(path);
}

export async function serveResponses(req: IncomingMessage, res: ServerResponse, context: ResponsesRouteContext): Promise<void> {
  const sendError = (error: SimulatedError): void => sendJson(res, error.status, error.envelope, { ...context.headers, ...error.headers });
  const { method, path, store } = context;
  if (path === '/v1/responses') {
    if (method !== 'POST') return sendError(openAIError(405, `Invalid method for URL (${method} ${path})`, 'invalid_request_error'));
    return create(req, res, context, sendError);
  }
  const [, id = '', inputItems] = ITEM_PATH.exec(path) ?? [];
  const stored = store.get(decodeURIComponent(id));
  if (!stored) return sendError(openAIError(404, `Response with id '${decodeURIComponent(id)}' not found.`, 'invalid_request_error', null));
  if (method === 'GET' && inputItems) return sendJson(res, 200, inputItemsPage(stored.input, context.query), context.headers);
  if (method === 'GET') return sendJson(res, 200, stored.body, context.headers);
  if (method === 'DELETE' && !inputItems) {
    store.delete(decodeURIComponent(id));
    return sendJson(res, 200, { id: decodeURIComponent(id), object: 'response', deleted: true }, context.headers);
  }
  return sendError(openAIError(405, `Invalid method for URL (${method} ${path})`, 'invalid_request_error'));
}

async function create(req: IncomingMessage, res: ServerResponse, context: ResponsesRouteContext, sendError: (error: SimulatedError) => void): Promise<void> {
  const scenario = context.takeScenario();
  const plan = scenario ? planFromScenario(scenario) : planFromPromptText(responsesDirectiveText(context.body));
  await delay(plan.firstByteDelayMs, context.signal);
  if (plan.error) return sendError(scenarioError(plan.error));
  const request = readResponsesRequest(context.body, (id) => context.store.get(id));
  if ('status' in request) return sendError(request);
  if (plan.cutAfterChunks !== undefined && !request.stream) {
    // A connection that dies before any response byte.
    dropConnection(req);
    return;
  }
  const meta: ResponseMeta = { id: newResponseId('resp_') + newResponseId('').slice(0, 19), createdAt: context.createdAt, request };
  const generated = generate(request, plan, context.streamChunks);
  const usage = responseUsage(request, generated, plan);
  const output = outputItems(generated);
  const body = responseBody(meta, finalStatus(generated), output, usage);
  if (request.store) context.store.set(meta.id, { body, input: request.input, output });
  if (!request.stream) return sendJson(res, 200, body, context.headers);
  return playResponseEvents(res, meta, responseEvents(meta, generated, usage, context.streamChunks), {
    chunkDelayMs: context.chunkDelayMs,
    ...(plan.cutAfterChunks === undefined ? {} : { cutAfterChunks: plan.cutAfterChunks }),
    ...(plan.streamErrorAfterChunks === undefined ? {} : { streamErrorAfterChunks: plan.streamErrorAfterChunks }),
    malformedEvent: plan.malformedEvent,
    headers: context.headers,
    signal: context.signal,
  });
}

/** The vendor's list: newest first by default, `after` an item id, `limit` 1–100 (default 20). */
function inputItemsPage(items: readonly WireItem[], query: URLSearchParams): Record<string, unknown> {
  const ordered = query.get('order') === 'asc' ? items : [...items].reverse();
  const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 20) || 20));
  const after = query.get('after');
  const start = after === null ? 0 : ordered.findIndex((item) => item.id === after) + 1 || ordered.length;
  const data = ordered.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length };
}
