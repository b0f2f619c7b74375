// POST models/{model}:predict (protocols §5.5): real PNGs at the aspect ratio and 1K/2K size asked.
//   [[sim:policy]]    400 INVALID_ARGUMENT: the prompt is blocked
//   [[sim:filter=K]]  K of the images come back as `raiFilteredReason` items (not images)
import { hashString } from '../_kit/http.ts';
import { makePng } from '../_kit/media/png.ts';
import { googleError, type SimReply } from './media-reply.ts';

const PIXELS: Record<string, Record<string, [number, number]>> = {
  '1K': { '1:1': [1024, 1024], '3:4': [896, 1280], '4:3': [1280, 896], '9:16': [768, 1408], '16:9': [1408, 768] },
  '2K': { '1:1': [2048, 2048], '3:4': [1792, 2560], '4:3': [2560, 1792], '9:16': [1536, 2816], '16:9': [2816, 1536] },
};
const PERSON = ['dont_allow', 'allow_adult', 'allow_all'];

export function predictReply(model: string, body: unknown): SimReply {
  const request = body as { instances?: Array<{ prompt?: unknown }>; parameters?: Record<string, unknown> } | undefined;
  const prompt = request?.instances?.[0]?.prompt;
  if (typeof prompt !== 'string' || prompt === '') return googleError(400, 'INVALID_ARGUMENT', '* instances[0].prompt: a prompt is required.');
  const p = request?.parameters ?? {};
  const count = p.sampleCount === undefined ? 4 : Number(p.sampleCount);
  const ultra = model.includes('ultra');
  if (!Number.isInteger(count) || count < 1 || count > (ultra ? 1 : 4)) {
    return googleError(400, 'INVALID_ARGUMENT', `sampleCount must be between 1 and ${ultra ? 1 : 4} for ${model}.`);
  }
  const ratio = typeof p.aspectRatio === 'string' ? p.aspectRatio : '1:1';
  const imageSize = typeof p.sampleImageSize === 'string' ? p.sampleImageSize : '1K';
  const pixels = PIXELS[imageSize]?.[ratio];
  if (!pixels) return googleError(400, 'INVALID_ARGUMENT', `Unsupported aspectRatio ${ratio} or sampleImageSize ${imageSize}.`);
  if (p.personGeneration !== undefined && !PERSON.includes(String(p.personGeneration).toLowerCase())) {
    return googleError(400, 'INVALID_ARGUMENT', `Unsupported personGeneration ${String(p.personGeneration)}.`);
  }
  if (prompt.includes('[[sim:policy]]')) {
    return googleError(400, 'INVALID_ARGUMENT', "Image generation failed with the following error: The prompt could not be submitted. This prompt contains sensitive words that violate Google's Responsible AI practices.");
  }
  const filtered = Number(/\[\[sim:filter=(\d+)\]\]/.exec(prompt)?.[1] ?? 0);
  const predictions = Array.from({ length: count }, (_, i) =>
    i < filtered
      ? { raiFilteredReason: 'Unable to show generated images. All images were filtered out because they violated Vertex AI\'s usage guidelines (simulated).' }
      : { bytesBase64Encoded: makePng(pixels[0], pixels[1], hashString(`${model}:${prompt}#${i}`)).toString('base64'), mimeType: 'image/png' },
  );
  return { kind: 'json', status: 200, body: { predictions } };
}
