import type { KnownModel } from '../../core/contracts/provider-adapter.ts';

/**
 * The family's media models with the specification's rules (read by the dialects from
 * `capabilities`) and default prices. Image ids are the specification's neutral ones; the
 * vendor's own id is `upstreamId` (quick start maps it). Prices in USD: per image by quality
 * and size, per second of audio in or video out, per million characters of speech.
 */

const IMAGE_RULES = { max_prompt_chars: 4000, response_formats: ['url', 'b64_json'] };

/** Token-priced image models, per image by quality: [square, portrait or landscape] USD (the vendor's published figures); standard = medium. */
function gptImagePrices(low: [number, number], medium: [number, number], high: [number, number]): Record<string, Record<string, number>> {
  const sizes = ([square, tall]: [number, number]) => ({ '1024x1024': square, '1024x1536': tall, '1536x1024': tall });
  return { standard: sizes(medium), low: sizes(low), medium: sizes(medium), high: sizes(high) };
}

export const openaiMediaModels: KnownModel[] = [
  {
    id: 'image-a-3',
    upstreamId: 'dall-e-3',
    kind: 'image',
    capabilities: {
      ...IMAGE_RULES,
      n_max: 1,
      sizes: ['1024x1024', '1792x1024', '1024x1792'],
      qualities: ['standard', 'hd'],
      default_quality: 'standard',
      styles: ['vivid', 'natural'],
      default_style: 'vivid',
      rewrites_prompt: true,
      upstream_response_format: true,
    },
    pricing: {
      per_image: {
        standard: { '1024x1024': 0.04, '1792x1024': 0.08, '1024x1792': 0.08 },
        hd: { '1024x1024': 0.08, '1792x1024': 0.12, '1024x1792': 0.12 },
      },
    },
  },
  {
    id: 'image-a-2',
    upstreamId: 'dall-e-2',
    kind: 'image',
    capabilities: {
      ...IMAGE_RULES,
      n_max: 10,
      sizes: ['256x256', '512x512', '1024x1024'],
      edits: true,
      variations: true,
      upstream_response_format: true,
    },
    pricing: { per_image: { standard: { '256x256': 0.016, '512x512': 0.018, '1024x1024': 0.02 } } },
  },
  {
    id: 'image-b-1',
    upstreamId: 'gpt-image-1',
    kind: 'image',
    capabilities: { ...IMAGE_RULES, n_max: 10, sizes: ['1024x1024', '1024x1536', '1536x1024'], qualities: ['low', 'medium', 'high'], edits: true, upstream_response_format: false },
    // standard (a request that names no quality) = medium
    pricing: { per_image: gptImagePrices([0.011, 0.016], [0.042, 0.063], [0.167, 0.25]) },
  },
  {
    id: 'image-b-1.5',
    upstreamId: 'gpt-image-1.5',
    kind: 'image',
    capabilities: { ...IMAGE_RULES, n_max: 10, sizes: ['1024x1024', '1024x1536', '1536x1024'], qualities: ['low', 'medium', 'high'], edits: true, upstream_response_format: false },
    pricing: { per_image: gptImagePrices([0.009, 0.013], [0.034, 0.05], [0.133, 0.2]) },
  },
  {
    id: 'tts-1',
    kind: 'speech',
    capabilities: { voices: ['alloy', 'ash', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer'], max_input_chars: 4096, instructions: false },
    pricing: { per_mchar: 15 },
  },
  {
    id: 'tts-1-hd',
    kind: 'speech',
    capabilities: { voices: ['alloy', 'ash', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer'], max_input_chars: 4096, instructions: false },
    pricing: { per_mchar: 30 },
  },
  { id: 'whisper-1', kind: 'transcription', capabilities: { response_formats: ['json', 'text', 'srt', 'verbose_json', 'vtt'] }, pricing: { per_second: 0.0001 } },
  { id: 'gpt-4o-transcribe', kind: 'transcription', capabilities: { response_formats: ['json', 'text'] }, pricing: { per_second: 0.0001 } },
  { id: 'gpt-4o-mini-transcribe', kind: 'transcription', capabilities: { response_formats: ['json', 'text'] }, pricing: { per_second: 0.00005 } },
  { id: 'omni-moderation-latest', kind: 'moderation', pricing: { per_request: 0 } },
  { id: 'text-moderation-latest', kind: 'moderation', pricing: { per_request: 0 } },
  { id: 'jina-reranker-v2-base-multilingual', kind: 'rerank', pricing: { input_per_mtok: 0.018 } },
  {
    id: 'sora-2',
    kind: 'video',
    capabilities: { durations: [4, 8, 12], default_duration: 4, sizes: ['720x1280', '1280x720'], default_size: '720x1280' },
    pricing: { per_second: 0.1 },
  },
  {
    id: 'sora-2-pro',
    kind: 'video',
    capabilities: { durations: [4, 8, 12], default_duration: 4, sizes: ['720x1280', '1280x720', '1024x1792', '1792x1024'], default_size: '720x1280' },
    pricing: { per_second: 0.3 },
  },
];
