import { invalidRequest } from '../../core/errors.ts';
import type { GeneratedImage } from '../../core/ir/media.ts';
import { emptyUsage } from '../../core/usage.ts';
import type { ImagesCodec } from '../../core/contracts/vendor-codec.ts';
import { mapGoogleError } from './media-errors.ts';
import { utf8Text } from '../_kit/read.ts';

interface Prediction {
  bytesBase64Encoded?: unknown;
  mimeType?: unknown;
  raiFilteredReason?: unknown;
}

/**
 * Image generation on the native prediction endpoint (`models/{model}:predict`, protocols §5.5),
 * for both `/v1/images/generations` and native `:predict` requests. `imageSize` travels as the
 * wire's `sampleImageSize`. Filtered images come back as items with only a reason, or not at
 * all: they are neither returned nor billed; when none is left, it is a content-policy refusal.
 */
export const geminiPredict: ImagesCodec = {
  prepare(call, target) {
    const parameters: Record<string, unknown> = { ...call.nativeParameters, sampleCount: call.n, includeRaiReason: true };
    if (call.aspectRatio !== undefined) parameters.aspectRatio = call.aspectRatio;
    if (call.imageSize !== undefined) parameters.sampleImageSize = call.imageSize;
    if (call.personGeneration !== undefined) parameters.personGeneration = call.personGeneration;
    return {
      path: `/models/${encodeURIComponent(target.upstreamModel)}:predict`,
      body: JSON.stringify({ instances: [{ prompt: call.prompt }], parameters }),
    };
  },

  decode(_call, _target, raw) {
    const json = JSON.parse(utf8Text(raw)) as { predictions?: Prediction[] };
    const predictions = Array.isArray(json.predictions) ? json.predictions : [];
    const images: GeneratedImage[] = [];
    let reason: string | undefined;
    for (const p of predictions) {
      if (typeof p.bytesBase64Encoded === 'string') images.push({ b64: p.bytesBase64Encoded, mimeType: typeof p.mimeType === 'string' ? p.mimeType : 'image/png' });
      else if (typeof p.raiFilteredReason === 'string') reason ??= p.raiFilteredReason;
    }
    if (images.length === 0) {
      throw invalidRequest(
        `The image request was rejected by the safety system${reason ? `: ${reason}` : ': no image was produced.'}`,
        'prompt',
        'content_policy_violation',
      );
    }
    return { usage: { ...emptyUsage(), units: images.length }, result: { created: Math.floor(Date.now() / 1000), images, extra: {} } };
  },

  mapError: mapGoogleError,
};
