import type { VideoPoll } from '../../core/ir/media.ts';
import type { VideoCodec } from '../../core/contracts/vendor-codec.ts';
import { mapGoogleError } from './media-errors.ts';
import { utf8Text } from '../_kit/read.ts';

interface Operation {
  name?: unknown;
  done?: unknown;
  error?: { code?: unknown; message?: unknown; status?: unknown };
  metadata?: { progress?: unknown; progressPercent?: unknown };
  response?: {
    generateVideoResponse?: {
      generatedSamples?: Array<{ video?: { uri?: unknown; encodedVideo?: unknown; encoding?: unknown } }>;
      raiMediaFilteredCount?: unknown;
      raiMediaFilteredReasons?: unknown;
    };
  };
}

/**
 * Video on the long-running prediction endpoint (protocols §5.6): submit with
 * `:predictLongRunning`, poll the operation by name until `done`, download the sample's `uri`
 * with the provider's key (or take inline `encodedVideo` bytes). The vendor does not report the
 * length it made: the worker measures the file.
 */
export const geminiVideo: VideoCodec = {
  prepare(call, target) {
    const parameters: Record<string, unknown> = { durationSeconds: call.seconds, sampleCount: 1 };
    if (call.aspectRatio !== undefined) parameters.aspectRatio = call.aspectRatio;
    return {
      path: `/models/${encodeURIComponent(target.upstreamModel)}:predictLongRunning`,
      body: JSON.stringify({ instances: [{ prompt: call.prompt }], parameters }),
    };
  },

  decode(_call, _target, raw) {
    const op = JSON.parse(utf8Text(raw)) as Operation;
    if (typeof op.name !== 'string') throw new Error('the upstream answered a video submission without an operation name');
    return { usage: null, result: { upstreamId: op.name } };
  },

  poll: {
    // the operation name is a path under the API version (`models/…/operations/…`)
    prepare: (job) => ({ method: 'GET', path: `/${job.upstreamId.replace(/^\/+/, '')}` }),
    decode(_job, raw): VideoPoll {
      const op = JSON.parse(utf8Text(raw)) as Operation;
      if (op.done !== true) {
        const progress = Number(op.metadata?.progressPercent ?? op.metadata?.progress ?? 0);
        return { state: 'running', progress: Number.isFinite(progress) ? progress : 0 };
      }
      if (op.error) {
        return { state: 'failed', code: typeof op.error.status === 'string' ? op.error.status.toLowerCase() : 'video_generation_failed', message: String(op.error.message ?? 'The video could not be generated.') };
      }
      const answer = op.response?.generateVideoResponse;
      const video = answer?.generatedSamples?.[0]?.video;
      if (typeof video?.uri === 'string') return { state: 'completed', seconds: null, download: { path: video.uri }, contentType: 'video/mp4' };
      if (typeof video?.encodedVideo === 'string') {
        return { state: 'completed', seconds: null, download: { bytes: Buffer.from(video.encodedVideo, 'base64') }, contentType: typeof video.encoding === 'string' ? video.encoding : 'video/mp4' };
      }
      const reasons = Array.isArray(answer?.raiMediaFilteredReasons) ? answer.raiMediaFilteredReasons.join(' ') : '';
      return { state: 'failed', code: 'content_policy_violation', message: `The video was rejected by the safety system.${reasons ? ` ${reasons}` : ''}` };
    },
  },

  download: (_job, path) => ({ method: 'GET', path }),

  mapError: mapGoogleError,
};
