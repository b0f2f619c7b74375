import type { KnownModel, VendorManifest } from '../../core/contracts/provider-adapter.ts';

/**
 * The messages wire family (Anthropic's Messages API). Default prices are the vendor's list
 * prices in USD per million tokens: cache reads at a tenth of the input price, 5-minute cache
 * writes at 1.25×; operators override them through the admin API or the YAML config.
 */
const claude = (id: string, input: number, output: number, maxOutputTokens?: number, longContext?: { input: number; output: number }): KnownModel => ({
  id,
  kind: 'chat',
  pricing: {
    ...tokenPrices(input, output),
    // web search: $10 per 1,000 searches (web fetch costs only its tokens)
    per_tool_call: { web_search: 0.01 },
    // the 1M-token context beta: a prompt past 200K tokens pays these prices for the whole request
    ...(longContext && { long_context: { threshold_tokens: 200_000, ...tokenPrices(longContext.input, longContext.output) } }),
  },
  ...(maxOutputTokens !== undefined && { maxOutputTokens }),
});

function tokenPrices(input: number, output: number) {
  return { input_per_mtok: input, output_per_mtok: output, cached_input_per_mtok: round(input / 10), cache_write_per_mtok: round(input * 1.25) };
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

export const anthropicManifest: VendorManifest = {
  family: 'anthropic',
  displayName: 'Anthropic Messages',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  versionSegment: '/v1',
  envVar: 'ANTHROPIC_API_KEY',
  auth: 'x-api-key',
  ownedBy: 'anthropic',
  models: [
    claude('claude-opus-5-5', 4, 20),
    claude('claude-sonnet-5-5', 2, 10),
    claude('claude-opus-5', 5, 25),
    claude('claude-sonnet-5', 2, 10),
    claude('claude-opus-4-6', 5, 25, 128_000),
    claude('claude-sonnet-4-6', 3, 15, 64_000, { input: 6, output: 22.5 }),
    claude('claude-haiku-4-5', 1, 5, 64_000),
  ],
};

/** The API version the gateway speaks when it translates (clients of the native endpoint choose their own). */
export const PINNED_VERSION = '2023-06-01';
