import { invalidRequest } from '../../core/errors.ts';
import type { GeneratedImage, ImageEditCall, ImageResult } from '../../core/ir/media.ts';
import { emptyUsage } from '../../core/usage.ts';
import type { DecodedResponse, ImageEditsCodec, ImagesCodec } from '../../core/contracts/vendor-codec.ts';
import { multipartBody } from '../_kit/multipart.ts';
import { mapOpenAIError } from './errors.ts';
import { utf8Text } from '../_kit/read.ts';

/**
 * Image generation, edits and variations on an OpenAI-family upstream. Models that take
 * `response_format` are asked for base64, so that the gateway serves every link itself (its
 * links expire on its own terms and name no vendor host).
 */
export const openaiImages: ImagesCodec = {
  prepare(call, target) {
    const body: Record<string, unknown> = { ...call.extra, model: target.upstreamModel, prompt: call.prompt, n: call.n, size: call.size };
    if (call.quality !== undefined) body.quality = call.quality;
    if (call.style !== undefined) body.style = call.style;
    if (call.upstreamResponseFormat) body.response_format = 'b64_json';
    return { path: '/images/generations', body: JSON.stringify(body) };
  },
  decode: (_call, _target, raw) => decodeImages(raw),
  mapError: mapOpenAIError,
};

export const openaiImageEdits: ImageEditsCodec = {
  prepare: (call, target) => imageForm('/images/edits', call, target.upstreamModel),
  decode: (_call, _target, raw) => decodeImages(raw),
  mapError: mapOpenAIError,
};

export const openaiImageVariations: ImageEditsCodec = {
  prepare: (call, target) => imageForm('/images/variations', call, target.upstreamModel),
  decode: (_call, _target, raw) => decodeImages(raw),
  mapError: mapOpenAIError,
};

function imageForm(path: string, call: ImageEditCall, model: string) {
  const fields: Array<[string, string]> = [['model', model], ['n', String(call.n)]];
  if (call.prompt !== undefined) fields.push(['prompt', call.prompt]);
  if (call.size !== undefined) fields.push(['size', call.size]);
  if (call.upstreamResponseFormat) fields.push(['response_format', 'b64_json']);
  for (const [name, value] of Object.entries(call.extra)) fields.push([name, value]);
  const files = [...call.images, ...(call.mask ? [call.mask] : [])];
  const form = multipartBody(fields, files);
  return { path, body: form.body, headers: { 'content-type': form.contentType, 'content-length': String(form.length) } };
}

interface ImagesAnswer {
  created?: unknown;
  data?: Array<{ b64_json?: unknown; url?: unknown; revised_prompt?: unknown }>;
  output_format?: unknown;
  [field: string]: unknown;
}

/** Each delivered image is one billed unit; an answer without images is a refusal, not a success. */
export function decodeImages(raw: Uint8Array): DecodedResponse<ImageResult> {
  const json = JSON.parse(utf8Text(raw)) as ImagesAnswer;
  const { created, data, ...extra } = json;
  const mimeType = typeof json.output_format === 'string' ? `image/${json.output_format === 'jpg' ? 'jpeg' : json.output_format}` : 'image/png';
  const images: GeneratedImage[] = [];
  for (const item of Array.isArray(data) ? data : []) {
    const image: GeneratedImage = { mimeType };
    if (typeof item.b64_json === 'string') image.b64 = item.b64_json;
    else if (typeof item.url === 'string') image.url = item.url;
    else continue;
    if (typeof item.revised_prompt === 'string') image.revisedPrompt = item.revised_prompt;
    images.push(image);
  }
  if (images.length === 0) {
    throw invalidRequest('The image request was rejected by the safety system: no image was produced.', 'prompt', 'content_policy_violation');
  }
  return {
    usage: { ...emptyUsage(), units: images.length },
    result: { created: typeof created === 'number' ? created : Math.floor(Date.now() / 1000), images, extra },
  };
}
