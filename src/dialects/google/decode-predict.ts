import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import type { Meter } from '../../core/pricing.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { ImageGenerationCall } from '../../core/ir/media.ts';
import { countTextTokens, type TextCounter } from '../../core/tokens/token-counter.ts';
import { caps, oneOf } from '../_kit/model-rules.ts';

const HANDLED = new Set(['sampleCount', 'aspectRatio', 'personGeneration', 'imageSize', 'sampleImageSize', 'quality']);

/**
 * A native prediction request (contract §3): one instance with a prompt of at most 480 tokens;
 * `sampleCount` 1–4 (default 4; Ultra exactly 1), `aspectRatio`, `personGeneration`
 * (either spelling), `imageSize` 1K/2K only on models that have 2K (`sampleImageSize`, the
 * wire name Google's client uses, is read too), `quality` low/medium/high. Other parameters
 * pass through to the upstream.
 */
export function decodePredict(body: Record<string, unknown>, model: CatalogueModel, count: TextCounter = countTextTokens): { call: ImageGenerationCall; meter: Meter; n: number } {
  if (!caps.flag(model, 'native_predict')) throw invalidRequest(`${model.id} is not a native image prediction model.`, 'model', 'model_not_supported');
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length === 0) throw invalidRequest('instances must be an array with one {prompt} object.', 'instances');
  if (instances.length > 1) throw invalidRequest('instances takes one prompt per request.', 'instances');
  const prompt = (instances[0] as { prompt?: unknown } | null)?.prompt;
  if (typeof prompt !== 'string' || prompt.trim() === '') throw invalidRequest('instances[0].prompt is required.', 'instances[0].prompt');
  const maxTokens = caps.number(model, 'max_prompt_tokens') ?? 480;
  const tokens = count(prompt);
  if (tokens > maxTokens) throw invalidRequest(`instances[0].prompt has ${tokens} tokens; at most ${maxTokens} are allowed.`, 'instances[0].prompt');

  const p = (body.parameters ?? {}) as Record<string, unknown>;
  if (typeof p !== 'object' || Array.isArray(p)) throw invalidRequest('parameters must be an object.', 'parameters');
  const nMax = caps.number(model, 'n_max') ?? 4;
  const n = p.sampleCount === undefined ? (caps.number(model, 'predict_default_n') ?? 4) : Number(p.sampleCount);
  if (!Number.isInteger(n) || n < 1 || n > nMax) {
    throw invalidRequest(nMax === 1 ? `sampleCount must be 1 for ${model.id}.` : `sampleCount must be an integer from 1 to ${nMax}.`, 'parameters.sampleCount');
  }
  const aspectRatio = str(p.aspectRatio, 'parameters.aspectRatio') ?? '1:1';
  oneOf(aspectRatio, caps.list(model, 'aspect_ratios') ?? ['1:1', '3:4', '4:3', '9:16', '16:9'], 'parameters.aspectRatio', model.id);
  const person = str(p.personGeneration, 'parameters.personGeneration')?.toLowerCase();
  if (person !== undefined) oneOf(person, caps.list(model, 'person_generation') ?? [], 'parameters.personGeneration', model.id);
  const imageSize = str(p.imageSize, 'parameters.imageSize') ?? str(p.sampleImageSize, 'parameters.sampleImageSize');
  const imageSizes = caps.list(model, 'image_sizes') ?? [];
  if (imageSize !== undefined) {
    if (imageSizes.length === 0) throw invalidRequest(`imageSize is only available on the Standard and Ultra models, not ${model.id}.`, 'parameters.imageSize');
    oneOf(imageSize, imageSizes, 'parameters.imageSize', model.id);
  }
  const quality = str(p.quality, 'parameters.quality') ?? 'high';
  oneOf(quality, caps.list(model, 'predict_qualities') ?? ['low', 'medium', 'high'], 'parameters.quality', model.id);

  const native = caps.record<[string, string]>(model, 'native_sizes') ?? {};
  const size = Object.entries(native).find(([, [ratio, k]]) => ratio === aspectRatio && k === (imageSize ?? '1K'))?.[0] ?? '*';
  const call: ImageGenerationCall = {
    prompt,
    n,
    size,
    aspectRatio,
    quality,
    extra: {},
    upstreamResponseFormat: false,
    nativeParameters: Object.fromEntries(Object.entries(p).filter(([k]) => !HANDLED.has(k))),
  };
  if (imageSize !== undefined) call.imageSize = imageSize;
  if (person !== undefined) call.personGeneration = person;
  return { call, meter: { unit: 'images', quality, size }, n };
}

function str(value: unknown, param: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${param} must be a string.`, param);
  return value;
}
