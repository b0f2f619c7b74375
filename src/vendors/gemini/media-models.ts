import type { KnownModel } from '../../core/contracts/provider-adapter.ts';

/**
 * The family's media models (issue 4): native image prediction, long-running video, and the
 * chat models that can answer with images. Image ids are the specification's neutral ones;
 * `upstreamId` is the vendor's (quick start maps it).
 *
 * Native image sizes: each aspect ratio at 1K and (Standard, Ultra) 2K, in pixels, so that
 * `/v1/images/generations` can take a `size` and prices can be keyed by `WxH`.
 */
const SIZES_1K: Record<string, [string, string]> = {
  '1024x1024': ['1:1', '1K'],
  '896x1280': ['3:4', '1K'],
  '1280x896': ['4:3', '1K'],
  '768x1408': ['9:16', '1K'],
  '1408x768': ['16:9', '1K'],
};
const SIZES_2K: Record<string, [string, string]> = {
  '2048x2048': ['1:1', '2K'],
  '1792x2560': ['3:4', '2K'],
  '2560x1792': ['4:3', '2K'],
  '1536x2816': ['9:16', '2K'],
  '2816x1536': ['16:9', '2K'],
};

const native = (nMax: number, withTwoK: boolean) => ({
  native_predict: true,
  max_prompt_chars: 4000,
  max_prompt_tokens: 480,
  n_max: nMax,
  predict_default_n: nMax === 1 ? 1 : 4,
  aspect_ratios: ['1:1', '3:4', '4:3', '9:16', '16:9'],
  image_sizes: withTwoK ? ['1K', '2K'] : [],
  predict_qualities: ['low', 'medium', 'high'],
  person_generation: ['dont_allow', 'allow_adult', 'allow_all'],
  response_formats: ['url', 'b64_json'],
  native_sizes: withTwoK ? { ...SIZES_1K, ...SIZES_2K } : SIZES_1K,
  sizes: Object.keys(withTwoK ? { ...SIZES_1K, ...SIZES_2K } : SIZES_1K),
});

export const geminiMediaModels: KnownModel[] = [
  { id: 'img-c-4.0-generate-001', upstreamId: 'imagen-4.0-generate-001', kind: 'image', capabilities: native(4, true), pricing: { per_image: { '*': { '*': 0.04 } } } },
  {
    id: 'img-c-4.0-ultra-generate-001',
    upstreamId: 'imagen-4.0-ultra-generate-001',
    kind: 'image',
    capabilities: native(1, true),
    pricing: { per_image: { '*': { '*': 0.06 } } },
  },
  { id: 'img-c-4.0-fast-generate-001', upstreamId: 'imagen-4.0-fast-generate-001', kind: 'image', capabilities: native(4, false), pricing: { per_image: { '*': { '*': 0.02 } } } },
  { id: 'img-c-3.0-generate-002', upstreamId: 'imagen-3.0-generate-002', kind: 'image', capabilities: native(4, false), pricing: { per_image: { '*': { '*': 0.03 } } } },
  {
    id: 'veo-3.1-generate-preview',
    kind: 'video',
    capabilities: { durations: [4, 6, 8], default_duration: 8, aspect_ratios: ['16:9', '9:16'], sizes: ['1280x720', '720x1280'], default_size: '1280x720' },
    pricing: { per_second: 0.4 },
  },
  {
    id: 'veo-3.1-fast-generate-preview',
    kind: 'video',
    capabilities: { durations: [4, 6, 8], default_duration: 8, aspect_ratios: ['16:9', '9:16'], sizes: ['1280x720', '720x1280'], default_size: '1280x720' },
    pricing: { per_second: 0.15 },
  },
  {
    id: 'gemini-2.5-flash-image',
    kind: 'chat',
    capabilities: { image_output: true },
    pricing: { input_per_mtok: 0.3, output_per_mtok: 30 },
  },
];
