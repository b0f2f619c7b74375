// A deterministic OpenAI-family upstream on a real socket: used by end-to-end tests, demo mode and
// the benchmark (where it is the "direct" baseline, hence plain node:http and no framework).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { delay, dropConnection, readJsonBody, sendJson, serveSimulator, type RecordedRequest, type SimulatorControls, type SimulatorTls } from '../_kit/http.ts';
import { chatCompletionsEndpoint } from './chat.ts';
import { completionsEndpoint } from './completions.ts';
import { embeddingsEndpoint } from './embeddings.ts';
import type { PostEndpoint, ReplyContext } from './endpoint.ts';
import { invalidApiKey, invalidRequest, openAIError, scenarioError, type SimulatedError } from './errors.ts';
import { handleMedia, type MediaState } from './media.ts';
import { listModels, retrieveModel } from './models.ts';
import { planFromPromptText, planFromScenario, type Scenario } from './scenarios.ts';
import { attachRealtimeSimulator, type SimRealtime } from './realtime/server.ts';
import { isResponsesPath, ResponsesStore, serveResponses } from './responses-route.ts';
import type { Generation } from './realtime/wire.ts';
import { playEventStream } from './stream.ts';

export type { Scenario } from './scenarios.ts';
export type { SimRealtime, SimRealtimeConnection } from './realtime/server.ts';

export interface OpenAISimulatorOptions {
  /** Required Bearer key; anything else gets 401 invalid_api_key. */
  apiKey: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** Delay before the response headers (simulated upstream latency). Default 0. */
  latencyMs?: number;
  /** Delay between stream chunks. Default 0 (no timers at all). */
  chunkDelayMs?: number;
  /** Number of content chunks a streamed text reply is split into. Default 20. */
  streamChunks?: number;
  /** When set, every `created` field is this Unix time (seconds) instead of the real clock. */
  fixedClock?: number;
  /** Keep every request in `requests`. Default true; the benchmark turns it off to keep memory flat. */
  recordRequests?: boolean;
  /** Realtime interface generations accepted on GET /v1/realtime. Default both. */
  realtimeGenerations?: Generation[];
  /** Serve HTTPS with this certificate, HTTP/2 to clients that offer it (as vendors do); baseUrl is then https://. */
  tls?: SimulatorTls;
}

export type { RecordedRequest } from '../_kit/http.ts';

/** baseUrl is "http://127.0.0.1:<port>/v1" (https with `tls`); scenarios are consumed one per POST request (FIFO). */
export interface OpenAISimulator extends SimulatorControls<Scenario, RecordedRequest> {
  /** GET /v1/realtime: the WebSocket sessions this simulator served. */
  readonly realtime: SimRealtime;
  /** An outage: every request, the models list included, answers this status until set back to null. */
  setOutage(status: number | null): void;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

const POST_ENDPOINTS: Readonly<Record<string, PostEndpoint>> = {
  '/v1/chat/completions': chatCompletionsEndpoint,
  '/v1/completions': completionsEndpoint,
  '/v1/embeddings': embeddingsEndpoint,
};

const MEDIA_PATHS = /^\/v1\/(audio\/|images\/|moderations$|rerank$|videos(\/|$))/;
const isMediaPath = (path: string) => MEDIA_PATHS.test(path);

export async function startOpenAISimulator(options: OpenAISimulatorOptions): Promise<OpenAISimulator> {
  const latencyMs = options.latencyMs ?? 0;
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const streamChunks = Math.max(1, options.streamChunks ?? 20);
  const recordRequests = options.recordRequests ?? true;
  const expectedAuthorization = `Bearer ${options.apiKey}`;
  const queue: Scenario[] = [];
  const requests: RecordedRequest[] = [];
  // Aborts pending delays on close() so no timer keeps the process alive.
  const shutdown = new AbortController();
  const mediaState: MediaState = { videos: new Map() };
  const responsesStore = new ResponsesStore();
  let baseUrl = '';
  let outage: number | null = null;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const path = target.split('?', 1)[0] ?? '/';
    if (outage !== null) {
      if (recordRequests) requests.push({ method, path: target, headers: req.headers, body: undefined });
      req.resume();
      const error = scenarioError({ status: outage, message: 'The simulated upstream is down.' });
      return sendJson(res, error.status, error.envelope, error.headers);
    }
    if (isMediaPath(path)) {
      const headers = { 'x-request-id': `req_${randomUUID().replaceAll('-', '')}` };
      await delay(latencyMs, shutdown.signal);
      if (req.headers.authorization !== expectedAuthorization) {
        if (recordRequests) requests.push({ method, path: target, headers: req.headers, body: undefined });
        const error = invalidApiKey();
        return sendJson(res, error.status, error.envelope, headers);
      }
      const handled = await handleMedia(req, res, path, headers, {
        takeScenario: () => queue.shift(),
        record: (body) => {
          if (recordRequests) requests.push({ method, path: target, headers: req.headers, body });
        },
        created: () => options.fixedClock ?? Math.floor(Date.now() / 1000),
        baseUrl,
        signal: shutdown.signal,
        state: mediaState,
      });
      if (handled) return;
    }
    const read = method === 'GET' || method === 'HEAD' ? { ok: true as const, body: undefined } : await readJsonBody(req, MAX_BODY_BYTES);
    if (recordRequests) requests.push({ method, path: target, headers: req.headers, body: read.ok ? read.body : undefined });
    const headers = { 'x-request-id': `req_${randomUUID().replaceAll('-', '')}` };
    const sendError = (error: SimulatedError): void => sendJson(res, error.status, error.envelope, { ...headers, ...error.headers });

    await delay(latencyMs, shutdown.signal);
    if (req.headers.authorization !== expectedAuthorization) return sendError(invalidApiKey());
    if (!read.ok) {
      if (read.reason === 'too-large') return sendError(openAIError(413, `Request body exceeds the ${MAX_BODY_BYTES}-byte limit.`, 'invalid_request_error'));
      return sendError(invalidRequest('We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload.)', null));
    }

    if (method === 'GET' && path === '/v1/models') return sendJson(res, 200, listModels(), headers);
    if (method === 'GET' && path.startsWith('/v1/models/')) {
      const model = retrieveModel(decodeURIComponent(path.slice('/v1/models/'.length)));
      return 'status' in model ? sendError(model) : sendJson(res, 200, model, headers);
    }
    if (isResponsesPath(path)) {
      const created = options.fixedClock ?? Math.floor(Date.now() / 1000);
      const query = new URLSearchParams(target.slice(path.length + 1));
      const context = { method, path, query, body: read.body, headers, takeScenario: () => queue.shift(), createdAt: created, streamChunks, chunkDelayMs, signal: shutdown.signal, store: responsesStore };
      return serveResponses(req, res, context);
    }
    const endpoint = method === 'POST' ? POST_ENDPOINTS[path] : undefined;
    if (!endpoint) return sendError(openAIError(404, `Invalid URL (${method} ${path})`, 'invalid_request_error'));

    const scenario = queue.shift();
    const plan = scenario ? planFromScenario(scenario) : planFromPromptText(endpoint.directiveText(read.body));
    await delay(plan.firstByteDelayMs, shutdown.signal);
    if (plan.error) return sendError(scenarioError(plan.error));
    const context: ReplyContext = { plan, created: options.fixedClock ?? Math.floor(Date.now() / 1000), streamChunks };
    const reply = endpoint.reply(read.body, context);
    if (plan.cutAfterChunks !== undefined && reply.kind !== 'stream') {
      // A connection that dies before any response byte.
      dropConnection(req);
      return;
    }
    switch (reply.kind) {
      case 'error':
        return sendError(reply.error);
      case 'json':
        return sendJson(res, 200, reply.body, headers);
      case 'stream':
        return playEventStream(res, reply.events, {
          chunkDelayMs,
          ...(plan.cutAfterChunks === undefined ? {} : { cutAfterChunks: plan.cutAfterChunks }),
          ...(plan.streamErrorAfterChunks === undefined ? {} : { streamErrorAfterChunks: plan.streamErrorAfterChunks }),
          malformedEvent: plan.malformedEvent,
          headers,
          signal: shutdown.signal,
        });
      default: {
        const unreachable: never = reply;
        throw new Error(`unknown reply ${JSON.stringify(unreachable)}`);
      }
    }
  }

  let realtime: SimRealtime | undefined;
  const controls = await serveSimulator(
    { host: options.host, port: options.port, basePath: '/v1', tls: options.tls },
    { queue, requests, shutdown },
    handle,
    (error) => openAIError(500, `Simulator failure: ${String(error)}`, 'server_error'),
    (server) => {
      realtime = attachRealtimeSimulator(server, { apiKey: options.apiKey, generations: options.realtimeGenerations ?? ['ga', 'beta'], record: recordRequests });
      return () => realtime!.closeAll();
    },
  );
  baseUrl = controls.baseUrl;
  // assigned, not spread: `connections` is a getter
  return Object.assign(controls, {
    realtime: realtime!,
    setOutage(status: number | null) {
      outage = status;
    },
  });
}
