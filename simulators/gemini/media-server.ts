// The Gemini family's media endpoints: native image prediction and long-running video. The
// family's simulator server (server.ts) hands these paths here; `startGeminiMediaSimulator`
// runs them alone on a socket for the media tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJsonBody, sendJson } from '../_kit/http.ts';
import { predictReply } from './predict.ts';
import { googleError, type SimReply } from './media-reply.ts';
import { downloadFile, pollOperation, startOperation, type SimOperation } from './video.ts';

const STATUS_CODES: Record<string, number> = { INVALID_ARGUMENT: 400, PERMISSION_DENIED: 403, NOT_FOUND: 404, RESOURCE_EXHAUSTED: 429, INTERNAL: 500, UNAVAILABLE: 503 };

/** The paths `handleMediaRequest` serves. */
export const MEDIA_PATH = /^\/v1beta\/(models\/[^/:]+:(predict|predictLongRunning)|models\/[^/]+\/operations\/[^/]+|files\/[^/:]+:download)$/;

export interface MediaSimState {
  operations: Map<string, SimOperation>;
  /** `http://127.0.0.1:<port>/v1beta` */
  baseUrl: string;
  /** every request body received, for tests */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: unknown }>;
  /** queued failures: the next media request answers with this status */
  failures: Array<{ status: number; message?: string }>;
}

/** Serves a media path; false when the path is not one. Authentication is checked by the caller. */
export async function handleMediaRequest(req: IncomingMessage, res: ServerResponse, state: MediaSimState): Promise<boolean> {
  const method = req.method ?? 'GET';
  const path = decodeURIComponent((req.url ?? '/').split('?', 1)[0] ?? '/');
  const action = /^\/v1beta\/models\/([^/:]+):(predict|predictLongRunning)$/.exec(path);
  const operation = /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/.exec(path);
  const file = /^\/v1beta\/files\/([^/:]+):download$/.exec(path);
  if (!action && !operation && !file) return false;
  let body: unknown;
  if (method === 'POST') {
    const read = await readJsonBody(req, 32 * 1024 * 1024);
    if (!read.ok) return send(res, googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
    body = read.body;
  }
  state.requests.push({ method, path, headers: req.headers, body });
  const failure = action ? state.failures.shift() : undefined;
  if (failure) {
    const status = Object.keys(STATUS_CODES).find((k) => STATUS_CODES[k] === failure.status) ?? 'INTERNAL';
    return send(res, googleError(failure.status, status, failure.message ?? `Simulated ${status}.`));
  }
  if (action && method === 'POST') return send(res, action[2] === 'predict' ? predictReply(action[1]!, body) : startOperation(action[1]!, body, state.operations));
  if (operation && method === 'GET') return send(res, pollOperation(operation[1]!, state.operations, state.baseUrl));
  if (file && method === 'GET') return send(res, downloadFile(file[1]!, state.operations));
  return send(res, googleError(404, 'NOT_FOUND', `No ${method} ${path}.`));
}

function send(res: ServerResponse, reply: SimReply): true {
  if (reply.kind === 'json') sendJson(res, reply.status, reply.body);
  else {
    res.writeHead(200, { 'content-type': reply.contentType, 'content-length': reply.data.length });
    res.end(reply.data);
  }
  return true;
}

export interface GeminiMediaSimulator {
  baseUrl: string;
  state: MediaSimState;
  close(): Promise<void>;
}

export async function startGeminiMediaSimulator(options: { apiKey: string }): Promise<GeminiMediaSimulator> {
  const state: MediaSimState = { operations: new Map(), baseUrl: '', requests: [], failures: [] };
  const server = createServer((req, res) => {
    const key = req.headers['x-goog-api-key'] ?? new URL(req.url ?? '/', 'http://x').searchParams.get('key');
    if (key !== options.apiKey) {
      send(res, googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.'));
      return;
    }
    handleMediaRequest(req, res, state)
      .then((handled) => {
        if (!handled) send(res, googleError(404, 'NOT_FOUND', `No ${req.method} ${req.url}.`));
      })
      .catch((error: unknown) => {
        if (!res.headersSent) send(res, googleError(500, 'INTERNAL', `Simulator failure: ${String(error)}`));
        else res.destroy();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}/v1beta`;
  return {
    baseUrl: state.baseUrl,
    state,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
