import type { VideoPoll } from '../../core/ir/media.ts';
import type { VideoCodec } from '../../core/contracts/vendor-codec.ts';
import { multipartBody } from '../_kit/multipart.ts';
import { mapOpenAIError } from './errors.ts';
import { utf8Text } from '../_kit/read.ts';

interface VideoJob {
  id?: unknown;
  status?: unknown;
  progress?: unknown;
  seconds?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}

/** Video jobs on an OpenAI-style upstream: `POST /videos` (multipart), `GET /videos/{id}`, `GET /videos/{id}/content`. */
export const openaiVideos: VideoCodec = {
  prepare(call, target) {
    const fields: Array<[string, string]> = [
      ['model', target.upstreamModel],
      ['prompt', call.prompt],
      ['seconds', String(call.seconds)],
    ];
    if (call.size !== undefined) fields.push(['size', call.size]);
    const form = multipartBody(fields, []);
    return { path: '/videos', body: form.body, headers: { 'content-type': form.contentType, 'content-length': String(form.length) } };
  },

  decode(_call, _target, raw) {
    const job = JSON.parse(utf8Text(raw)) as VideoJob;
    if (typeof job.id !== 'string') throw new Error('the upstream answered a video submission without a job id');
    return { usage: null, result: { upstreamId: job.id } };
  },

  poll: {
    prepare: (job) => ({ method: 'GET', path: `/videos/${encodeURIComponent(job.upstreamId)}` }),
    decode(job, raw): VideoPoll {
      const status = JSON.parse(utf8Text(raw)) as VideoJob;
      if (status.status === 'completed') {
        const seconds = Number(status.seconds);
        return {
          state: 'completed',
          seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : null,
          download: { path: `/videos/${encodeURIComponent(job.upstreamId)}/content` },
          contentType: 'video/mp4',
        };
      }
      if (status.status === 'failed') {
        return {
          state: 'failed',
          code: typeof status.error?.code === 'string' ? status.error.code : 'video_generation_failed',
          message: typeof status.error?.message === 'string' ? status.error.message : 'The video could not be generated.',
        };
      }
      return { state: 'running', progress: typeof status.progress === 'number' ? status.progress : 0 };
    },
  },

  download: (_job, path) => ({ method: 'GET', path, headers: { accept: 'application/binary' } }),

  mapError: mapOpenAIError,
};
