// A deterministic messages-family upstream on a real socket (protocols.md §3): POST /v1/messages
// (JSON and SSE with `event:` lines) and /v1/messages/count_tokens, the vendor's auth header,
// version header and error envelopes, and the shared scenarios. Used by tests, demo mode and
// the benchmark.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { delay, dropConnection, readJsonBody, sendJson, serveSimulator, type RecordedRequest, type SimulatorControls } from '../_kit/http.ts';
import { planFromPromptText, planFromScenario, type Scenario } from '../_kit/scenarios.ts';
import { anthropicError, invalidRequest, scenarioError, type SimulatedError } from './errors.ts';
import { buildReply } from './reply.ts';
import { readMessagesRequest } from './request.ts';
import { playStream, streamEvents } from './stream.ts';

export type { Scenario } from '../_kit/scenarios.ts';

export interface AnthropicSimulatorOptions {
  /** required `x-api-key` */
  apiKey: string;
  host?: string;
  port?: number;
  /** delay before the response headers */
  latencyMs?: number;
  /** delay between stream events */
  chunkDelayMs?: number;
  /** number of text deltas a streamed reply is split into (default 20) */
  streamChunks?: number;
  /** keep every request in `requests` (default true) */
  recordRequests?: boolean;
}

export type { RecordedRequest } from '../_kit/http.ts';

/** baseUrl is "http://127.0.0.1:<port>/v1" */
export type AnthropicSimulator = SimulatorControls<Scenario, RecordedRequest>;

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function startAnthropicSimulator(options: AnthropicSimulatorOptions): Promise<AnthropicSimulator> {
  const streamChunks = Math.max(1, options.streamChunks ?? 20);
  const recordRequests = options.recordRequests ?? true;
  const queue: Scenario[] = [];
  const requests: RecordedRequest[] = [];
  const shutdown = new AbortController();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const read = method === 'POST' ? await readJsonBody(req, MAX_BODY_BYTES) : { ok: true as const, body: undefined };
    if (recordRequests) requests.push({ method, path: req.url ?? '/', headers: req.headers, body: read.ok ? read.body : undefined });
    const headers = { 'request-id': `req_${randomUUID().replaceAll('-', '')}` };
    const sendError = (error: SimulatedError): void => sendJson(res, error.status, error.envelope, { ...headers, ...error.headers });

    await delay(options.latencyMs ?? 0, shutdown.signal);
    if (req.headers['x-api-key'] !== options.apiKey) return sendError(anthropicError(401, 'invalid x-api-key'));
    const version = req.headers['anthropic-version'];
    if (typeof version !== 'string') return sendError(invalidRequest('anthropic-version: header is required'));
    if (!read.ok) return sendError(read.reason === 'too-large' ? anthropicError(413, 'Request exceeds the maximum allowed number of bytes.') : invalidRequest('There was an issue with your request body: invalid JSON.'));
    // the models list, which the gateway's health checks ask for
    if (method === 'GET' && path === '/v1/models') return sendJson(res, 200, { data: [], has_more: false, first_id: null, last_id: null }, headers);
    if (method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) return sendError(anthropicError(404, `Not found: ${method} ${path}`));

    const countOnly = path === '/v1/messages/count_tokens';
    const body = countOnly && read.body && typeof read.body === 'object' ? { max_tokens: 1, ...read.body } : read.body;
    const request = readMessagesRequest(body, version);
    const scenario = queue.shift();
    const plan = scenario ? planFromScenario(scenario) : planFromPromptText('status' in request ? '' : request.lastUserText);
    await delay(plan.firstByteDelayMs, shutdown.signal);
    if (plan.error) return sendError(scenarioError(plan.error));
    if ('status' in request) return sendError(request);
    if (countOnly) return sendJson(res, 200, { input_tokens: request.promptTokens }, headers);

    const reply = buildReply(request, plan, streamChunks, `${request.lastUserText}|${requests.length}`);
    const meta = { id: `msg_sim${randomUUID().replaceAll('-', '').slice(0, 20)}`, model: request.model };
    if (!request.stream) {
      if (plan.cutAfterChunks !== undefined) {
        dropConnection(req);
        return;
      }
      return sendJson(res, 200, messageBody(meta, reply), headers);
    }
    return playStream(res, streamEvents(reply, meta, streamChunks), {
      chunkDelayMs: options.chunkDelayMs ?? 0,
      ...(plan.cutAfterChunks !== undefined && { cutAfterChunks: plan.cutAfterChunks }),
      ...(plan.streamErrorAfterChunks !== undefined && { streamErrorAfterChunks: plan.streamErrorAfterChunks }),
      malformedEvent: plan.malformedEvent,
      headers,
      signal: shutdown.signal,
    });
  }

  return serveSimulator({ host: options.host, port: options.port, basePath: '/v1' }, { queue, requests, shutdown }, handle, (error) =>
    anthropicError(500, `Simulator failure: ${String(error)}`),
  );
}

function messageBody(meta: { id: string; model: string }, reply: ReturnType<typeof buildReply>) {
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: reply.blocks,
    stop_reason: reply.stopReason,
    stop_sequence: reply.stopSequence,
    usage: { ...reply.usage, cache_creation: { ephemeral_5m_input_tokens: reply.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 }, service_tier: 'standard' },
  };
}
