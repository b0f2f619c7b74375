import type { KnownModel, VendorManifest } from '../../core/contracts/provider-adapter.ts';
import { geminiMediaModels } from './media-models.ts';

/**
 * The Gemini wire family (generativelanguage v1beta). Default prices are the vendor's list
 * prices in USD per million tokens (prompts up to 200k tokens; thinking is billed as output);
 * operators override them through the admin API or the YAML config.
 */
const gemini = (id: string, input: number, output: number, cached: number, audioInput: number, past200k?: [input: number, output: number, cached: number]): KnownModel => ({
  id,
  kind: 'chat',
  pricing: {
    input_per_mtok: input,
    output_per_mtok: output,
    cached_input_per_mtok: cached,
    // audio in the prompt (the flash models price it above text)
    audio_input_per_mtok: audioInput,
    // the pro models' prompts past 200k tokens pay the higher prices for the whole request
    ...(past200k && { long_context: { threshold_tokens: 200_000, input_per_mtok: past200k[0], output_per_mtok: past200k[1], cached_input_per_mtok: past200k[2] } }),
  },
  // every chat model listed here answers with at most 65,536 tokens (thinking included)
  maxOutputTokens: 65_536,
});

export const chatModels: KnownModel[] = [
  gemini('gemini-3-pro-preview', 2, 12, 0.2, 2, [4, 18, 0.4]),
  gemini('gemini-3-flash-preview', 0.5, 3, 0.05, 1),
  gemini('gemini-2.5-pro', 1.25, 10, 0.125, 1.25, [2.5, 15, 0.25]),
  gemini('gemini-2.5-flash', 0.3, 2.5, 0.03, 1),
  gemini('gemini-2.5-flash-lite', 0.1, 0.4, 0.01, 0.3),
];

export const embeddingModels: KnownModel[] = [
  { id: 'gemini-embedding-001', kind: 'embedding', pricing: { input_per_mtok: 0.15 }, capabilities: { dimensions: 3072, supports_dimensions: true } },
  { id: 'text-embedding-004', kind: 'embedding', pricing: { input_per_mtok: 0 }, capabilities: { dimensions: 768, supports_dimensions: true } },
];

export const geminiManifest: VendorManifest = {
  family: 'gemini',
  displayName: 'Google Gemini API',
  genAiSystem: 'gcp.gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  versionSegment: '/v1beta',
  envVar: 'GEMINI_API_KEY',
  auth: 'x-goog-api-key',
  ownedBy: 'google',
  models: [...chatModels, ...embeddingModels, ...geminiMediaModels],
};
