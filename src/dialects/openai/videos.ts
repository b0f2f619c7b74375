import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { VideoCall } from '../../core/ir/media.ts';
import type { VideoJob } from '../../core/contracts/video-job.ts';
import { caps, oneOf, requireKind } from '../_kit/model-rules.ts';

export const DEFAULT_VIDEO_MODEL = 'sora-2';

/**
 * A video request, from `/v1/videos/generations` (`duration`, integer seconds) or the job API
 * `/v1/videos` (`seconds`, a string). The length must be one the model makes; it sets the hold
 * (`seconds × per_second`).
 */
export function decodeVideo(input: { prompt: unknown; seconds: unknown; size: unknown }, model: CatalogueModel, secondsField: 'duration' | 'seconds'): VideoCall {
  requireKind(model, 'video', secondsField === 'duration' ? '/v1/videos/generations' : '/v1/videos');
  if (typeof input.prompt !== 'string' || input.prompt.trim() === '') throw invalidRequest("Missing required parameter: 'prompt'.", 'prompt');
  const durations = caps.numbers(model, 'durations');
  const raw = input.seconds ?? caps.number(model, 'default_duration') ?? durations?.[0];
  const seconds = Number(raw);
  if (raw === undefined || !Number.isInteger(seconds) || seconds < 1) throw invalidRequest(`${secondsField} must be a whole number of seconds.`, secondsField);
  if (durations && !durations.includes(seconds)) {
    throw invalidRequest(`${secondsField} must be one of ${durations.join(', ')} seconds for ${model.id} (got ${seconds}).`, secondsField);
  }
  const sizes = caps.list(model, 'sizes');
  const size = typeof input.size === 'string' ? input.size : caps.string(model, 'default_size');
  if (size !== undefined && sizes) oneOf(size, sizes, 'size', model.id);
  const [w, h] = (size ?? '').split('x').map(Number);
  const aspectRatio = w && h ? (w >= h ? '16:9' : '9:16') : undefined;
  return { prompt: input.prompt, seconds, size, aspectRatio };
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** The job API's shape (what the official client's `videos.retrieve` reads). */
export function videoView(job: VideoJob, expiresAt: number | null): Record<string, unknown> {
  return {
    id: job.id,
    object: 'video',
    model: job.model,
    status: job.status,
    progress: job.status === 'completed' ? 100 : job.progress,
    created_at: seconds(job.created_at),
    completed_at: seconds(job.completed_at),
    expires_at: seconds(expiresAt),
    prompt: job.prompt,
    seconds: String(job.seconds_billed ?? job.seconds_requested),
    size: job.size,
    remixed_from_video_id: null,
    error: job.status === 'failed' ? { code: job.error_code ?? 'video_generation_failed', message: job.error_message ?? 'The video could not be generated.' } : null,
  };
}

/** The gateway's own generation shape (contract §3): the same job, with its link when done. */
export function generationView(job: VideoJob, url: string | null, expiresAt: number | null): Record<string, unknown> {
  return {
    id: job.id,
    object: 'video.generation',
    status: job.status,
    model: job.model,
    created: seconds(job.created_at),
    prompt: job.prompt,
    duration: job.seconds_billed ?? job.seconds_requested,
    progress: job.status === 'completed' ? 100 : job.progress,
    ...(url !== null && { url, expires_at: seconds(expiresAt) }),
    ...(job.status === 'failed' && { error: { code: job.error_code ?? 'video_generation_failed', message: job.error_message ?? 'The video could not be generated.' } }),
  };
}
