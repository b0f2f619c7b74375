// A deterministic Gemini-family upstream on a real socket (protocols.md §5): generateContent,
// streamGenerateContent (`?alt=sse` events, or one JSON array without it), embedContent,
// batchEmbedContents and countTokens under /v1beta/models/{model}:{method}; the vendor's key
// header (or `?key=`), its error envelope and the shared scenarios. Used by tests, demo mode and
// the benchmark.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { delay, dropConnection, readJsonBody, sendJson, serveSimulator, type RecordedRequest, type SimulatorControls } from '../_kit/http.ts';
import { planFromPromptText, planFromScenario, type Scenario } from '../_kit/scenarios.ts';
import { batchEmbedContents, embedContent } from './embeddings.ts';
import { apiKeyInvalid, googleError, invalidArgument, scenarioError, type SimulatedError } from './errors.ts';
import { handleMediaRequest, MEDIA_PATH, type MediaSimState } from './media-server.ts';
import { buildReply } from './reply.ts';
import { readGenerateRequest } from './request.ts';
import { playStream, responseBody, streamBodies } from './stream.ts';

export type { Scenario } from '../_kit/scenarios.ts';

export interface GeminiSimulatorOptions {
  /** required `x-goog-api-key` (or `?key=`) */
  apiKey: string;
  host?: string;
  port?: number;
  latencyMs?: number;
  chunkDelayMs?: number;
  /** number of text events a streamed reply is split into (default 20) */
  streamChunks?: number;
  recordRequests?: boolean;
}

export type { RecordedRequest } from '../_kit/http.ts';

/** baseUrl is "http://127.0.0.1:<port>/v1beta" */
export type GeminiSimulator = SimulatorControls<Scenario, RecordedRequest>;

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const ROUTE = /^\/v1beta\/models\/([^/:]+):([A-Za-z]+)$/;

export async function startGeminiSimulator(options: GeminiSimulatorOptions): Promise<GeminiSimulator> {
  const streamChunks = Math.max(1, options.streamChunks ?? 20);
  const recordRequests = options.recordRequests ?? true;
  const queue: Scenario[] = [];
  const requests: RecordedRequest[] = [];
  const shutdown = new AbortController();
  // native image prediction and long-running video share the socket (media-server.ts)
  const media: MediaSimState = { operations: new Map(), baseUrl: '', requests: [], failures: [] };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const method = req.method ?? 'GET';
    if (MEDIA_PATH.test(url.pathname)) {
      const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key');
      if (key !== options.apiKey) {
        const error = apiKeyInvalid();
        return sendJson(res, error.status, error.envelope, error.headers);
      }
      await handleMediaRequest(req, res, media);
      return;
    }
    const read = method === 'POST' ? await readJsonBody(req, MAX_BODY_BYTES) : { ok: true as const, body: undefined };
    if (recordRequests) requests.push({ method, path: req.url ?? '/', headers: req.headers, body: read.ok ? read.body : undefined });
    const headers = { 'x-goog-request-id': randomUUID() };
    const sendError = (error: SimulatedError): void => sendJson(res, error.status, error.envelope, { ...headers, ...error.headers });

    await delay(options.latencyMs ?? 0, shutdown.signal);
    const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key');
    if (!key) return sendError(googleError(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."));
    if (key !== options.apiKey) return sendError(apiKeyInvalid());
    if (!read.ok) return sendError(read.reason === 'too-large' ? googleError(413, 'Request payload size exceeds the limit.') : invalidArgument('Invalid JSON payload received.'));
    // the models list, which the gateway's health checks ask for
    if (method === 'GET' && url.pathname === '/v1beta/models') return sendJson(res, 200, { models: [] }, headers);
    const route = ROUTE.exec(url.pathname);
    if (method !== 'POST' || !route) return sendError(googleError(404, `Not found: ${method} ${url.pathname}`));
    const model = decodeURIComponent(route[1]!);
    const action = route[2]!;

    if (action === 'embedContent' || action === 'batchEmbedContents') {
      const scenario = queue.shift();
      const plan = scenario ? planFromScenario(scenario) : planFromPromptText(JSON.stringify(read.body ?? ''));
      await delay(plan.firstByteDelayMs, shutdown.signal);
      if (plan.error) return sendError(scenarioError(plan.error));
      const answer = action === 'embedContent' ? embedContent(read.body, model) : batchEmbedContents(read.body, model);
      return isError(answer) ? sendError(answer) : sendJson(res, 200, answer, headers);
    }
    if (action !== 'generateContent' && action !== 'streamGenerateContent' && action !== 'countTokens') {
      return sendError(googleError(404, `Method not found: ${action}`));
    }
    const request = readGenerateRequest(read.body, model);
    const scenario = queue.shift();
    const plan = scenario ? planFromScenario(scenario) : planFromPromptText('status' in request ? '' : request.lastUserText);
    await delay(plan.firstByteDelayMs, shutdown.signal);
    if (plan.error) return sendError(scenarioError(plan.error));
    if ('status' in request) return sendError(request);
    if (action === 'countTokens') return sendJson(res, 200, { totalTokens: request.promptTokens }, headers);

    const reply = buildReply(request, plan, streamChunks);
    const meta = { responseId: randomUUID().replaceAll('-', '').slice(0, 22), modelVersion: model };
    if (action === 'generateContent' || url.searchParams.get('alt') !== 'sse') {
      if (plan.cutAfterChunks !== undefined) {
        dropConnection(req);
        return;
      }
      const body = action === 'generateContent' ? responseBody(reply, meta) : streamBodies(reply, meta, streamChunks).map((e) => e.body);
      return sendJson(res, 200, body, headers);
    }
    return playStream(res, streamBodies(reply, meta, streamChunks), {
      chunkDelayMs: options.chunkDelayMs ?? 0,
      ...(plan.cutAfterChunks !== undefined && { cutAfterChunks: plan.cutAfterChunks }),
      ...(plan.streamErrorAfterChunks !== undefined && { streamErrorAfterChunks: plan.streamErrorAfterChunks }),
      malformedEvent: plan.malformedEvent,
      headers,
      signal: shutdown.signal,
    });
  }

  const simulator = await serveSimulator({ host: options.host, port: options.port, basePath: '/v1beta' }, { queue, requests, shutdown }, handle, (error) =>
    googleError(500, `Simulator failure: ${String(error)}`),
  );
  media.baseUrl = simulator.baseUrl;
  return simulator;
}

function isError(value: unknown): value is SimulatedError {
  return typeof value === 'object' && value !== null && 'status' in value && 'envelope' in value;
}
