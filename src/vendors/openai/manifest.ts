import type { PricingUsd } from '../../core/pricing.ts';
import type { VendorManifest } from '../../core/contracts/provider-adapter.ts';
import { openaiMediaModels } from './media-models.ts';

/** [input, cached input, output] USD per million tokens, for text and for audio */
function realtimePrices(p: { text: [number, number, number]; audio: [number, number, number] }): PricingUsd {
  return {
    input_per_mtok: p.text[0],
    cached_input_per_mtok: p.text[1],
    output_per_mtok: p.text[2],
    audio_input_per_mtok: p.audio[0],
    cached_audio_input_per_mtok: p.audio[1],
    audio_output_per_mtok: p.audio[2],
  };
}

/**
 * Standard prices plus the paid service tiers' token prices, each [input, cached input, output]
 * USD per million tokens (the vendor's published flex and priority prices).
 */
function tiers(standard: PricingUsd, paid: Record<string, [number, number, number]>): PricingUsd {
  const service_tiers = Object.fromEntries(
    Object.entries(paid).map(([tier, [input, cached, output]]) => [tier, { input_per_mtok: input, cached_input_per_mtok: cached, output_per_mtok: output }]),
  );
  return { ...standard, service_tiers };
}

/**
 * The OpenAI wire family: OpenAI itself and every OpenAI-compatible server (vLLM, Ollama,
 * DeepSeek, OpenRouter…). Default prices are OpenAI's list prices (USD per million tokens);
 * operators override them through the admin API or the YAML config.
 */
export const openaiManifest: VendorManifest = {
  family: 'openai',
  displayName: 'OpenAI-compatible',
  defaultBaseUrl: 'https://api.openai.com/v1',
  versionSegment: '/v1',
  envVar: 'OPENAI_API_KEY',
  auth: 'bearer',
  ownedBy: 'openai',
  models: [
    { id: 'gpt-4o', kind: 'chat', pricing: tiers({ input_per_mtok: 2.5, output_per_mtok: 10, cached_input_per_mtok: 1.25 }, { priority: [4.25, 2.125, 17] }), maxOutputTokens: 16_384 },
    { id: 'gpt-4o-mini', kind: 'chat', pricing: tiers({ input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075 }, { priority: [0.25, 0.125, 1] }), maxOutputTokens: 16_384 },
    { id: 'gpt-4.1', kind: 'chat', pricing: tiers({ input_per_mtok: 2, output_per_mtok: 8, cached_input_per_mtok: 0.5 }, { priority: [3.5, 0.875, 14] }), maxOutputTokens: 32_768 },
    { id: 'gpt-4.1-mini', kind: 'chat', pricing: tiers({ input_per_mtok: 0.4, output_per_mtok: 1.6, cached_input_per_mtok: 0.1 }, { priority: [0.7, 0.175, 2.8] }), maxOutputTokens: 32_768 },
    { id: 'gpt-4.1-nano', kind: 'chat', pricing: tiers({ input_per_mtok: 0.1, output_per_mtok: 0.4, cached_input_per_mtok: 0.025 }, { priority: [0.2, 0.05, 0.8] }), maxOutputTokens: 32_768 },
    {
      id: 'gpt-5',
      kind: 'chat',
      pricing: tiers({ input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 }, { flex: [0.625, 0.0625, 5], priority: [2.5, 0.25, 20] }),
      maxOutputTokens: 128_000,
    },
    {
      id: 'gpt-5-mini',
      kind: 'chat',
      pricing: tiers({ input_per_mtok: 0.25, output_per_mtok: 2, cached_input_per_mtok: 0.025 }, { flex: [0.125, 0.0125, 1], priority: [0.45, 0.045, 3.6] }),
      maxOutputTokens: 128_000,
    },
    {
      id: 'o4-mini',
      kind: 'chat',
      pricing: tiers({ input_per_mtok: 1.1, output_per_mtok: 4.4, cached_input_per_mtok: 0.275 }, { flex: [0.55, 0.1375, 2.2], priority: [2, 0.5, 8] }),
      maxOutputTokens: 100_000,
    },
    // web search in chat (`web_search_options`): one search per request, priced per call
    { id: 'gpt-4o-search-preview', kind: 'chat', pricing: { input_per_mtok: 2.5, output_per_mtok: 10, per_tool_call: { web_search: 0.025 } }, maxOutputTokens: 16_384 },
    { id: 'gpt-4o-mini-search-preview', kind: 'chat', pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6, per_tool_call: { web_search: 0.025 } }, maxOutputTokens: 16_384 },
    // audio in and out of chat (`modalities: ["text", "audio"]`): audio tokens priced apart
    { id: 'gpt-audio', kind: 'chat', pricing: { input_per_mtok: 2.5, output_per_mtok: 10, audio_input_per_mtok: 32, audio_output_per_mtok: 64 }, maxOutputTokens: 16_384 },
    { id: 'gpt-4o-audio-preview', kind: 'chat', pricing: { input_per_mtok: 2.5, output_per_mtok: 10, audio_input_per_mtok: 40, audio_output_per_mtok: 80 }, maxOutputTokens: 16_384 },
    { id: 'gpt-4o-mini-audio-preview', kind: 'chat', pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6, audio_input_per_mtok: 10, audio_output_per_mtok: 20 }, maxOutputTokens: 16_384 },
    { id: 'gpt-3.5-turbo-instruct', kind: 'completion', pricing: { input_per_mtok: 1.5, output_per_mtok: 2 }, maxOutputTokens: 4_096 },
    // realtime (GET /v1/realtime): text and audio tokens priced apart
    {
      id: 'gpt-realtime',
      kind: 'realtime',
      pricing: realtimePrices({ text: [4, 0.4, 16], audio: [32, 0.4, 64] }),
    },
    {
      id: 'gpt-realtime-mini',
      kind: 'realtime',
      pricing: realtimePrices({ text: [0.6, 0.06, 2.4], audio: [10, 0.3, 20] }),
    },
    {
      id: 'gpt-4o-realtime-preview',
      kind: 'realtime',
      pricing: realtimePrices({ text: [5, 2.5, 20], audio: [40, 2.5, 80] }),
    },
    {
      id: 'gpt-4o-mini-realtime-preview',
      kind: 'realtime',
      pricing: realtimePrices({ text: [0.6, 0.3, 2.4], audio: [10, 0.3, 20] }),
    },
    {
      id: 'text-embedding-3-small',
      kind: 'embedding',
      pricing: { input_per_mtok: 0.02 },
      capabilities: { dimensions: 1536, supports_dimensions: true },
    },
    {
      id: 'text-embedding-3-large',
      kind: 'embedding',
      pricing: { input_per_mtok: 0.13 },
      capabilities: { dimensions: 3072, supports_dimensions: true },
    },
    {
      // the specification states 1532 dimensions; the vendor's model returns 1536
      id: 'text-embedding-ada-002',
      kind: 'embedding',
      pricing: { input_per_mtok: 0.1 },
      capabilities: { dimensions: 1536, supports_dimensions: false },
    },
    ...openaiMediaModels,
  ],
};
