// The video job API (protocols §2.8): POST /v1/videos, GET /v1/videos/{id}, GET …/content.
// A job completes on its N-th poll (default the first), or fails / never ends on request.
import { randomUUID } from 'node:crypto';
import { makeMp4 } from '../_kit/media/mp4.ts';
import { invalidRequest, openAIError } from './errors.ts';
import { mediaDirective, type MediaReply, type MediaRequest } from './media-reply.ts';

export interface SimVideo {
  id: string;
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  created: number;
  polls: number;
  completeAfter: number;
  outcome: 'complete' | 'fail' | 'hang';
}

const SECONDS = ['4', '8', '12'];
const SIZES = ['720x1280', '1280x720', '1024x1792', '1792x1024'];

export function createVideo(request: MediaRequest, videos: Map<string, SimVideo>): MediaReply {
  const field = (name: string) => (request.form ? request.form.field(name) : typeof request.json?.[name] === 'string' || typeof request.json?.[name] === 'number' ? String(request.json[name]) : undefined);
  const prompt = field('prompt');
  if (!prompt) return { kind: 'error', error: invalidRequest("Missing required parameter: 'prompt'.", 'prompt') };
  const seconds = field('seconds') ?? '4';
  if (!SECONDS.includes(seconds)) return { kind: 'error', error: invalidRequest(`Invalid value for 'seconds': ${seconds}.`, 'seconds') };
  const size = field('size') ?? '720x1280';
  if (!SIZES.includes(size)) return { kind: 'error', error: invalidRequest(`Invalid value for 'size': ${size}.`, 'size') };
  const polls = mediaDirective(prompt, 'polls');
  const video: SimVideo = {
    id: `video_${randomUUID().replaceAll('-', '')}`,
    model: field('model') ?? 'sora-2',
    prompt,
    seconds,
    size,
    created: request.created,
    polls: 0,
    completeAfter: typeof polls === 'number' ? polls : 1,
    outcome: mediaDirective(prompt, 'fail') ? 'fail' : mediaDirective(prompt, 'hang') ? 'hang' : 'complete',
  };
  videos.set(video.id, video);
  return { kind: 'json', body: view(video, 'queued') };
}

export function videoStatus(videos: Map<string, SimVideo>, id: string): MediaReply {
  const video = videos.get(id);
  if (!video) return { kind: 'error', error: openAIError(404, `Video ${id} not found.`, 'invalid_request_error', null, 'video_not_found') };
  video.polls++;
  return { kind: 'json', body: view(video, statusOf(video)) };
}

export function videoContent(videos: Map<string, SimVideo>, id: string): MediaReply {
  const video = videos.get(id);
  if (!video || statusOf(video) !== 'completed') return { kind: 'error', error: openAIError(404, `Video ${id} has no content.`, 'invalid_request_error', null, 'video_not_found') };
  const [w, h] = video.size.split('x').map(Number);
  return { kind: 'bytes', contentType: 'video/mp4', data: makeMp4(Number(video.seconds), w!, h!) };
}

function statusOf(video: SimVideo): 'queued' | 'in_progress' | 'completed' | 'failed' {
  if (video.polls === 0) return 'queued';
  if (video.outcome === 'hang' || video.polls < video.completeAfter) return 'in_progress';
  return video.outcome === 'fail' ? 'failed' : 'completed';
}

function view(video: SimVideo, status: ReturnType<typeof statusOf>) {
  return {
    id: video.id,
    object: 'video',
    model: video.model,
    status,
    progress: status === 'completed' ? 100 : status === 'in_progress' ? 50 : 0,
    created_at: video.created,
    completed_at: status === 'completed' ? video.created + 1 : null,
    expires_at: null,
    prompt: video.prompt,
    seconds: video.seconds,
    size: video.size,
    remixed_from_video_id: null,
    error: status === 'failed' ? { code: 'video_generation_failed', message: 'The simulated video failed.' } : null,
  };
}
