import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { imagePrice, type Meter } from '../../core/pricing.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { ImageEditCall, ImageGenerationCall, InlineFile, MediaFile } from '../../core/ir/media.ts';
import type { MultipartForm } from '../../core/contracts/multipart-form.ts';
import { caps, oneOf, requireKind } from '../_kit/model-rules.ts';

export type ImageResponseFormat = 'url' | 'b64_json';

export interface DecodedImages<Call> {
  call: Call;
  meter: Meter;
  responseFormat: ImageResponseFormat;
  /** images to reserve for */
  n: number;
}

const HANDLED = new Set(['model', 'prompt', 'n', 'size', 'quality', 'style', 'response_format']);
const DEFAULT_SIZE = '1024x1024';

/**
 * `/v1/images/generations` under the specification's per-model table (capabilities): `n` within
 * the model's range, `size` among its sizes, `quality` and `style` only where the model has them,
 * the prompt within its length. Native prediction models take a `size` that maps to one of their
 * aspect ratios (and 1K/2K). Each rule broken is a 400 naming the field and the rule.
 */
export function decodeImageGeneration(body: Record<string, unknown>, model: CatalogueModel): DecodedImages<ImageGenerationCall> {
  requireKind(model, 'image', '/v1/images/generations');
  const prompt = body.prompt as string;
  const maxChars = caps.number(model, 'max_prompt_chars') ?? 4000;
  if (prompt.length > maxChars) throw invalidRequest(`prompt is ${prompt.length} characters long; ${model.id} allows at most ${maxChars}.`, 'prompt');
  const n = (body.n as number | null | undefined) ?? 1;
  const nMax = caps.number(model, 'n_max') ?? 10;
  if (n > nMax) throw invalidRequest(nMax === 1 ? `n must be 1 for ${model.id} (one image per request).` : `n must be between 1 and ${nMax} for ${model.id}.`, 'n');
  const size = (body.size as string | null | undefined) ?? DEFAULT_SIZE;
  const sizes = caps.list(model, 'sizes');
  if (sizes) oneOf(size, sizes, 'size', model.id);
  const quality = optionalChoice(body.quality, caps.list(model, 'qualities'), 'quality', model.id);
  if (quality !== undefined) requireImagePrice(model, quality, size);
  const style = optionalChoice(body.style, caps.list(model, 'styles'), 'style', model.id);
  const responseFormat = ((body.response_format as string | null | undefined) ?? 'url') as ImageResponseFormat;
  const extra = Object.fromEntries(Object.entries(body).filter(([k]) => !HANDLED.has(k)));

  const call: ImageGenerationCall = { prompt, n, size, extra, upstreamResponseFormat: caps.flag(model, 'upstream_response_format') };
  if (quality !== undefined) call.quality = quality;
  if (style !== undefined) call.style = style;
  const native = caps.record<[string, string]>(model, 'native_sizes');
  if (native) {
    const [aspectRatio, imageSize] = native[size] ?? [];
    if (!aspectRatio || !imageSize) throw invalidRequest(`size ${size} is not available for ${model.id}.`, 'size');
    call.aspectRatio = aspectRatio;
    // 1K is the vendor's default: only a 2K request names its size
    if (imageSize !== '1K') call.imageSize = imageSize;
    call.extra = {};
  }
  const meterQuality = quality ?? caps.string(model, 'default_quality') ?? 'standard';
  return { call, meter: { unit: 'images', quality: meterQuality, size }, responseFormat, n };
}

/** A quality the model's price book has no per-image price for is refused, not delivered free. */
function requireImagePrice(model: CatalogueModel, quality: string, size: string): void {
  if (model.pricing.perImage && imagePrice(model.pricing, quality, size) === undefined) {
    throw invalidRequest(`quality "${quality}" at size ${size} is not available for ${model.id}: the gateway has no price for it.`, 'quality');
  }
}

function optionalChoice(value: unknown, allowed: string[] | undefined, param: string, modelId: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!allowed) throw invalidRequest(`${param} is not supported by ${modelId}.`, param);
  oneOf(String(value), allowed, param, modelId);
  return String(value);
}

/**
 * `/v1/images/edits` and `/v1/images/variations` from the specification's JSON body (images as
 * base64) or the multipart form official clients send. The model must allow the operation.
 */
export function decodeImageEdit(
  source: { json: Record<string, unknown> } | { form: MultipartForm },
  model: CatalogueModel,
  kind: 'edits' | 'variations',
): DecodedImages<ImageEditCall> {
  requireKind(model, 'image', `/v1/images/${kind}`);
  if (!caps.flag(model, kind)) throw invalidRequest(`${model.id} does not support image ${kind === 'edits' ? 'editing' : 'variations'}.`, 'model', 'model_not_supported');
  const text = (name: string): string | undefined => {
    if ('form' in source) return source.form.field(name);
    const value = source.json[name];
    return value === undefined || value === null ? undefined : String(value);
  };
  const images = 'form' in source ? source.form.files.filter((f) => f.field === 'image' || f.field === 'image[]') : inlineImages(source.json.image, 'image');
  if (images.length === 0) throw invalidRequest("Missing required parameter: 'image'.", 'image');
  const maskList = 'form' in source ? source.form.files.filter((f) => f.field === 'mask') : source.json.mask === undefined ? [] : inlineImages(source.json.mask, 'mask');
  const prompt = text('prompt');
  if (kind === 'edits' && !prompt) throw invalidRequest("Missing required parameter: 'prompt'.", 'prompt');
  if (prompt !== undefined && prompt.length > (caps.number(model, 'max_prompt_chars') ?? 4000)) {
    throw invalidRequest(`prompt allows at most ${caps.number(model, 'max_prompt_chars') ?? 4000} characters.`, 'prompt');
  }
  const n = text('n') === undefined ? 1 : Number(text('n'));
  const nMax = caps.number(model, 'n_max') ?? 10;
  if (!Number.isInteger(n) || n < 1 || n > nMax) throw invalidRequest(`n must be an integer between 1 and ${nMax} for ${model.id}.`, 'n');
  const size = text('size');
  const sizes = caps.list(model, 'sizes');
  if (size !== undefined && sizes) oneOf(size, sizes, 'size', model.id);
  const responseFormat = (text('response_format') ?? 'url') as ImageResponseFormat;
  oneOf(responseFormat, ['url', 'b64_json'], 'response_format', 'this endpoint');
  // the quality is a price: only one the model has, metered at its price (it was forwarded and metered as standard)
  const quality = optionalChoice(text('quality'), caps.list(model, 'qualities'), 'quality', model.id);
  if (quality !== undefined) requireImagePrice(model, quality, size ?? DEFAULT_SIZE);
  const handled = new Set(['model', 'prompt', 'n', 'size', 'response_format', 'image', 'image[]', 'mask']);
  const extra: Record<string, string> = {};
  if ('form' in source) for (const [name, value] of source.form.fields) if (!handled.has(name)) extra[name] = value;
  if (quality !== undefined) extra.quality = quality;
  const call: ImageEditCall = { prompt, n, size, images, mask: maskList[0], extra, upstreamResponseFormat: caps.flag(model, 'upstream_response_format') };
  return { call, meter: { unit: 'images', quality: quality ?? 'standard', size: size ?? DEFAULT_SIZE }, responseFormat, n };
}

/** Base64 (or a data URL) → bytes; one string or an array of them. */
function inlineImages(value: unknown, field: string): MediaFile[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((item, i): InlineFile => {
    if (typeof item !== 'string' || item.length === 0) throw invalidRequest(`${field} must be a Base64-encoded image.`, field);
    const match = /^data:([\w/+.-]+);base64,(.*)$/s.exec(item);
    const bytes = Buffer.from(match ? match[2]! : item, 'base64');
    if (bytes.length === 0) throw invalidRequest(`${field} is not valid Base64 image data.`, field);
    const contentType = match?.[1] ?? 'image/png';
    return { field: list.length > 1 ? `${field}[]` : field, filename: `${field}-${i}.${contentType.split('/')[1] ?? 'png'}`, contentType, bytes };
  });
}
