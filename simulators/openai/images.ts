// POST /v1/images/generations, /edits, /variations (protocols §2.7): real PNGs of the asked size.
import { hashString } from '../_kit/http.ts';
import { makePng } from '../_kit/media/png.ts';
import { invalidRequest } from './errors.ts';
import { mediaDirective, type MediaReply, type MediaRequest } from './media-reply.ts';

interface ModelRules {
  nMax: number;
  sizes: string[];
  qualities: string[] | null;
  styles: boolean;
  responseFormat: boolean;
  rewrites: boolean;
}

const DALL_E_3: ModelRules = { nMax: 1, sizes: ['1024x1024', '1792x1024', '1024x1792'], qualities: ['standard', 'hd'], styles: true, responseFormat: true, rewrites: true };
const DALL_E_2: ModelRules = { nMax: 10, sizes: ['256x256', '512x512', '1024x1024'], qualities: ['standard'], styles: false, responseFormat: true, rewrites: false };
const GPT_IMAGE: ModelRules = { nMax: 10, sizes: ['1024x1024', '1024x1536', '1536x1024', 'auto'], qualities: ['low', 'medium', 'high', 'auto'], styles: false, responseFormat: false, rewrites: false };

/** The vendor's own ids and the specification's neutral ones. */
const MODELS: Readonly<Record<string, ModelRules>> = {
  'dall-e-3': DALL_E_3,
  'image-a-3': DALL_E_3,
  'dall-e-2': DALL_E_2,
  'image-a-2': DALL_E_2,
  'gpt-image-1': GPT_IMAGE,
  'image-b-1': GPT_IMAGE,
  'gpt-image-1.5': GPT_IMAGE,
  'image-b-1.5': GPT_IMAGE,
};

export function imageGenerationReply(request: MediaRequest): MediaReply {
  const body = request.json;
  if (!body) return { kind: 'error', error: invalidRequest('This endpoint takes a JSON body.', null) };
  const model = typeof body.model === 'string' ? body.model : 'dall-e-2';
  const rules = MODELS[model];
  if (!rules) return { kind: 'error', error: invalidRequest(`Invalid value for 'model': ${model}.`, 'model') };
  if (typeof body.prompt !== 'string' || body.prompt === '') return { kind: 'error', error: invalidRequest("Missing required parameter: 'prompt'.", 'prompt') };
  if (mediaDirective(body.prompt, 'policy')) {
    return { kind: 'error', error: invalidRequest('Your request was rejected as a result of our safety system.', null, 'content_policy_violation') };
  }
  const n = typeof body.n === 'number' ? body.n : 1;
  if (n < 1 || n > rules.nMax) return { kind: 'error', error: invalidRequest(`Invalid 'n': must be between 1 and ${rules.nMax} for ${model}.`, 'n') };
  const size = typeof body.size === 'string' ? body.size : '1024x1024';
  if (!rules.sizes.includes(size)) return { kind: 'error', error: invalidRequest(`Invalid value for 'size': ${size}.`, 'size') };
  if (body.quality !== undefined && !rules.qualities?.includes(String(body.quality))) return { kind: 'error', error: invalidRequest(`Invalid value for 'quality'.`, 'quality') };
  if (body.style !== undefined && !rules.styles) return { kind: 'error', error: invalidRequest(`'style' is not supported by ${model}.`, 'style') };
  if (body.response_format !== undefined && !rules.responseFormat) return { kind: 'error', error: invalidRequest(`Unknown parameter: 'response_format'.`, 'response_format') };
  const data = pictures(body.prompt, n, size).map((b64) => ({ b64_json: b64, ...(rules.rewrites && { revised_prompt: `A detailed, vivid rendering of: ${body.prompt as string}` }) }));
  return { kind: 'json', body: { created: request.created, data, ...(rules === GPT_IMAGE && gptImageExtras(size, n)) } };
}

export function imageEditReply(request: MediaRequest, kind: 'edit' | 'variation'): MediaReply {
  const form = request.form;
  const json = request.json;
  const field = (name: string) => (form ? form.field(name) : typeof json?.[name] === 'string' ? (json[name] as string) : undefined);
  const images = form ? form.files.filter((f) => f.field === 'image' || f.field === 'image[]') : [];
  if (images.length === 0) return { kind: 'error', error: invalidRequest("Missing required parameter: 'image'.", 'image') };
  const prompt = field('prompt');
  if (kind === 'edit' && !prompt) return { kind: 'error', error: invalidRequest("Missing required parameter: 'prompt'.", 'prompt') };
  if (prompt && mediaDirective(prompt, 'policy')) {
    return { kind: 'error', error: invalidRequest('Your request was rejected as a result of our safety system.', null, 'content_policy_violation') };
  }
  const n = Number(field('n') ?? 1);
  const size = field('size') ?? '1024x1024';
  const seed = `${kind}:${prompt ?? ''}:${images[0]!.data.length}`;
  return { kind: 'json', body: { created: request.created, data: pictures(seed, n, size).map((b64) => ({ b64_json: b64 })) } };
}

function pictures(seedText: string, n: number, size: string): string[] {
  const [w, h] = size === 'auto' ? [1024, 1024] : size.split('x').map(Number);
  return Array.from({ length: n }, (_, i) => makePng(w!, h!, hashString(`${seedText}#${i}`)).toString('base64'));
}

function gptImageExtras(size: string, n: number) {
  return {
    background: 'opaque',
    output_format: 'png',
    quality: 'medium',
    size,
    usage: { input_tokens: 50, input_tokens_details: { text_tokens: 50, image_tokens: 0 }, output_tokens: 1056 * n, total_tokens: 50 + 1056 * n },
  };
}
