// The simulator's media endpoints (audio, images, moderations, rerank, videos). They read their
// own bodies (multipart or JSON), honour queued scenarios and `[[sim:…]]` directives like the
// text endpoints, and add media directives of their own:
//   [[sim:policy]]    images: 400 content_policy_violation
//   [[sim:fail]]      videos: the job fails
//   [[sim:hang]]      videos: the job never finishes
//   [[sim:polls=N]]   videos: the job completes on the N-th poll (default 1)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { delay, isRecord, sendJson } from '../_kit/http.ts';
import { parseMultipart, readRawBody, type SimForm } from '../_kit/multipart.ts';
import { speechReply, transcriptionReply } from './audio.ts';
import { invalidRequest, openAIError, scenarioError } from './errors.ts';
import { imageEditReply, imageGenerationReply } from './images.ts';
import type { MediaReply, MediaRequest } from './media-reply.ts';
import { moderationReply, rerankReply } from './retrieval.ts';
import { planFromPromptText, planFromScenario, type Scenario } from './scenarios.ts';
import { createVideo, videoContent, videoStatus, type SimVideo } from './videos.ts';

export interface MediaState {
  videos: Map<string, SimVideo>;
}

const POST_ROUTES: Readonly<Record<string, (request: MediaRequest, state: MediaState) => MediaReply | Promise<MediaReply>>> = {
  '/v1/audio/transcriptions': (r) => transcriptionReply(r),
  '/v1/audio/speech': (r) => speechReply(r),
  '/v1/images/generations': (r) => imageGenerationReply(r),
  '/v1/images/edits': (r) => imageEditReply(r, 'edit'),
  '/v1/images/variations': (r) => imageEditReply(r, 'variation'),
  '/v1/moderations': (r) => moderationReply(r),
  '/v1/rerank': (r) => rerankReply(r),
  '/v1/videos': (r, state) => createVideo(r, state.videos),
};

export interface MediaHandlerOptions {
  takeScenario(): Scenario | undefined;
  record(body: unknown): void;
  created(): number;
  baseUrl: string;
  signal: AbortSignal;
  state: MediaState;
}

/** Serves a media path (after authentication); false when the path is not a media endpoint. */
export async function handleMedia(req: IncomingMessage, res: ServerResponse, path: string, headers: Record<string, string>, options: MediaHandlerOptions): Promise<boolean> {
  const method = req.method ?? 'GET';
  const video = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
  if (method === 'GET' && video) {
    const reply = video[2] ? videoContent(options.state.videos, decodeURIComponent(video[1]!)) : videoStatus(options.state.videos, decodeURIComponent(video[1]!));
    send(res, reply, headers);
    return true;
  }
  const route = method === 'POST' ? POST_ROUTES[path] : undefined;
  if (!route) return false;

  const raw = await readRawBody(req, 64 * 1024 * 1024);
  if (raw === 'too-large') {
    send(res, { kind: 'error', error: openAIError(413, 'Request body too large (simulated limit).', 'invalid_request_error') }, headers);
    return true;
  }
  const form = parseMultipart(raw, req.headers['content-type']);
  let json: Record<string, unknown> | undefined;
  if (!form) {
    try {
      const parsed = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
      if (!isRecord(parsed)) throw new Error('not an object');
      json = parsed;
    } catch {
      send(res, { kind: 'error', error: invalidRequest('The request body must be a JSON object or a multipart form.', null) }, headers);
      return true;
    }
  }
  options.record(json ?? Object.fromEntries([...form!.fields].map(([k, v]) => [k, v.length === 1 ? v[0] : v])));
  const text = directiveText(json, form);
  const scenario = options.takeScenario();
  const plan = scenario ? planFromScenario(scenario) : planFromPromptText(text);
  await delay(plan.firstByteDelayMs, options.signal);
  if (plan.error) {
    send(res, { kind: 'error', error: scenarioError(plan.error) }, headers);
    return true;
  }
  const reply = await route({ json, form, plan, created: options.created(), baseUrl: options.baseUrl }, options.state);
  if (plan.cutAfterChunks !== undefined && reply.kind === 'bytes') {
    // half the bytes, then a dead connection
    res.writeHead(200, { ...headers, 'content-type': reply.contentType });
    res.write(reply.data.subarray(0, Math.floor(reply.data.length / 2)), () => res.destroy());
    return true;
  }
  send(res, reply, headers);
  return true;
}

function directiveText(json: Record<string, unknown> | undefined, form: SimForm | undefined): string {
  const pick = (name: string) => {
    const value = json ? json[name] : form?.field(name);
    if (typeof value === 'string') return value;
    return Array.isArray(value) ? value.filter((v) => typeof v === 'string').join('\n') : '';
  };
  return [pick('prompt'), pick('input'), pick('query')].join('\n');
}

function send(res: ServerResponse, reply: MediaReply, headers: Record<string, string>): void {
  if (reply.kind === 'json') return sendJson(res, 200, reply.body, headers);
  if (reply.kind === 'error') return sendJson(res, reply.error.status, reply.error.envelope, { ...headers, ...reply.error.headers });
  // binary answers go out in a few writes, the way a vendor streams audio
  res.writeHead(200, { ...headers, 'content-type': reply.contentType });
  const step = Math.max(1, Math.ceil(reply.data.length / 4));
  for (let i = 0; i < reply.data.length; i += step) res.write(reply.data.subarray(i, i + step));
  res.end();
}
