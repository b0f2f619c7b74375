import { CostSum, usdToNano, type Nano } from './money.ts';
import type { Usage } from './usage.ts';

/** Prices as operators write them (admin API, YAML): USD, each field optional, combined additively. */
export interface PricingUsd {
  input_per_mtok?: number;
  output_per_mtok?: number;
  cached_input_per_mtok?: number;
  /** audio tokens (realtime); each falls back to its text counterpart when unset */
  audio_input_per_mtok?: number;
  cached_audio_input_per_mtok?: number;
  audio_output_per_mtok?: number;
  /** prompt tokens written to the vendor's prompt cache (priced at the input price when unset) */
  cache_write_per_mtok?: number;
  /** {quality: {"WxH" | "*": usd}}, quality one of standard, hd, low, medium, high, * */
  per_image?: Record<string, Record<string, number>>;
  per_second?: number;
  per_mchar?: number;
  per_request?: number;
  /**
   * Token prices of the paid service tiers a request may ask for (`flex`, `priority`…), each
   * replacing the standard price it names (unset fields keep the standard one). A tier with no
   * entry here is refused; `auto` and `default` are the standard prices.
   */
  service_tiers?: Record<string, TokenPricesUsd>;
  /** USD per call of a built-in tool the vendor runs and bills per call (`web_search`…); a tool not priced here is refused */
  per_tool_call?: Record<string, number>;
  /** prompts of more than `threshold_tokens` input tokens pay these token prices for the whole request (unset fields keep the standard one) */
  long_context?: TokenPricesUsd & { threshold_tokens: number };
}

/** The token prices a service tier or long context replaces. */
export interface TokenPricesUsd {
  input_per_mtok?: number;
  output_per_mtok?: number;
  cached_input_per_mtok?: number;
  cache_write_per_mtok?: number;
  audio_input_per_mtok?: number;
  audio_output_per_mtok?: number;
}

/** The same prices as integer nano-dollars, ready for exact arithmetic. */
export interface Pricing {
  inputPerMtok: Nano;
  outputPerMtok: Nano;
  /** undefined = cached tokens cost the input price */
  cachedInputPerMtok: Nano | undefined;
  /** undefined = audio tokens cost their text counterpart */
  audioInputPerMtok: Nano | undefined;
  cachedAudioInputPerMtok: Nano | undefined;
  audioOutputPerMtok: Nano | undefined;
  /** undefined = cache-write tokens cost the input price */
  cacheWritePerMtok: Nano | undefined;
  perImage: Record<string, Record<string, Nano>> | undefined;
  perSecond: Nano;
  perMchar: Nano;
  perRequest: Nano;
  /** the whole price book of each paid tier (standard prices where the tier sets none) */
  serviceTiers: Record<string, Pricing> | undefined;
  perToolCall: Record<string, Nano> | undefined;
  longContext: { thresholdTokens: number; pricing: Pricing } | undefined;
}

export function toPricing(usd: PricingUsd): Pricing {
  const base = basePricing(usd);
  const { service_tiers: tiers, long_context: long } = usd;
  if (tiers) base.serviceTiers = Object.fromEntries(Object.entries(tiers).map(([tier, prices]) => [tier, overlay(usd, prices)]));
  if (usd.per_tool_call) base.perToolCall = Object.fromEntries(Object.entries(usd.per_tool_call).map(([tool, price]) => [tool, usdToNano(price)]));
  if (long) base.longContext = { thresholdTokens: long.threshold_tokens, pricing: overlay(usd, long) };
  return base;
}

/** The standard prices with a tier's (or long context's) token prices in their place. */
function overlay(usd: PricingUsd, prices: TokenPricesUsd): Pricing {
  const { threshold_tokens: _threshold, ...tokens } = prices as TokenPricesUsd & { threshold_tokens?: number };
  const defined = Object.fromEntries(Object.entries(tokens).filter(([, v]) => v !== undefined));
  return basePricing({ ...usd, ...defined });
}

function basePricing(usd: PricingUsd): Pricing {
  return {
    inputPerMtok: usdToNano(usd.input_per_mtok ?? 0),
    outputPerMtok: usdToNano(usd.output_per_mtok ?? 0),
    cachedInputPerMtok: optionalNano(usd.cached_input_per_mtok),
    audioInputPerMtok: optionalNano(usd.audio_input_per_mtok),
    cachedAudioInputPerMtok: optionalNano(usd.cached_audio_input_per_mtok),
    audioOutputPerMtok: optionalNano(usd.audio_output_per_mtok),
    cacheWritePerMtok: optionalNano(usd.cache_write_per_mtok),
    perImage: usd.per_image && mapImagePrices(usd.per_image),
    perSecond: usdToNano(usd.per_second ?? 0),
    perMchar: usdToNano(usd.per_mchar ?? 0),
    perRequest: usdToNano(usd.per_request ?? 0),
    serviceTiers: undefined,
    perToolCall: undefined,
    longContext: undefined,
  };
}

const optionalNano = (usd: number | undefined): Nano | undefined => (usd === undefined ? undefined : usdToNano(usd));

function mapImagePrices(table: Record<string, Record<string, number>>): Record<string, Record<string, Nano>> {
  const out: Record<string, Record<string, Nano>> = {};
  for (const [quality, sizes] of Object.entries(table)) {
    out[quality] = {};
    for (const [size, usd] of Object.entries(sizes)) out[quality][size] = usdToNano(usd);
  }
  return out;
}

export const FREE: Pricing = toPricing({});

/**
 * Exact cost of a token-and-unit usage, one rounding per request. `kind` says what `usage.units`
 * counts for this operation (seconds, characters or nothing).
 */
export function costOf(book: Pricing, usage: Usage, unitKind: 'none' | 'seconds' | 'characters' = 'none'): Nano {
  const pricing = tokenPricesFor(book, usage);
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  // audio token subsets (realtime) and prompt-cache writes (messages family); zero elsewhere
  const audioIn = clamp(usage.audioInputTokens ?? 0, usage.inputTokens);
  const cachedAudio = clamp(usage.cachedAudioInputTokens ?? 0, Math.min(cached, audioIn));
  const audioOut = clamp(usage.audioOutputTokens ?? 0, usage.outputTokens);
  const textIn = usage.inputTokens - audioIn;
  const cachedText = clamp(cached - cachedAudio, textIn);
  const written = clamp(usage.cacheWriteTokens, textIn - cachedText);
  const tokens = new CostSum()
    .add(textIn - cachedText - written, pricing.inputPerMtok)
    .add(cachedText, pricing.cachedInputPerMtok ?? pricing.inputPerMtok)
    .add(written, pricing.cacheWritePerMtok ?? pricing.inputPerMtok)
    .add(audioIn - cachedAudio, pricing.audioInputPerMtok ?? pricing.inputPerMtok)
    .add(cachedAudio, pricing.cachedAudioInputPerMtok ?? pricing.cachedInputPerMtok ?? pricing.audioInputPerMtok ?? pricing.inputPerMtok)
    .add(usage.outputTokens - audioOut, pricing.outputPerMtok)
    .add(audioOut, pricing.audioOutputPerMtok ?? pricing.outputPerMtok)
    .add(unitKind === 'characters' ? usage.units : 0, pricing.perMchar)
    .toNano();
  const seconds = unitKind === 'seconds' ? Math.round(usage.units * pricing.perSecond) : 0;
  return tokens + seconds + pricing.perRequest + toolCallsCost(book, usage.toolCalls);
}

/** The price book a usage's tokens pay: its service tier's, else long context's past the threshold, else the standard one. */
function tokenPricesFor(book: Pricing, usage: Usage): Pricing {
  const tier = usage.serviceTier === undefined ? undefined : book.serviceTiers?.[usage.serviceTier];
  if (tier) return tier;
  const long = book.longContext;
  if (long && (usage.longContext === true || usage.inputTokens > long.thresholdTokens)) return long.pricing;
  return book;
}

function toolCallsCost(book: Pricing, calls: Record<string, number> | undefined): Nano {
  if (!calls) return 0;
  let cost = 0;
  for (const [tool, count] of Object.entries(calls)) cost += clamp(Math.round(count), Number.MAX_SAFE_INTEGER) * (book.perToolCall?.[tool] ?? 0);
  return cost;
}

const clamp = (value: number, max: number): number => Math.max(0, Math.min(value, max));

/** Price of one image of `quality` and `size`, falling back to `*` entries; undefined when not priced. */
export function imagePrice(pricing: Pricing, quality: string, size: string): Nano | undefined {
  const table = pricing.perImage;
  if (!table) return undefined;
  const row = table[quality] ?? table['*'];
  if (!row) return undefined;
  return row[size] ?? row['*'];
}

/**
 * What `usage.units` counts for an operation, and so how it is priced. Token prices and
 * `per_request` apply to every operation; the unit price is added on top.
 */
export type Meter =
  | { unit: 'tokens' }
  /** audio in (transcription) or video out, at `per_second` */
  | { unit: 'seconds' }
  /** speech input characters, at `per_mchar` */
  | { unit: 'characters' }
  /** images delivered, at `per_image[quality][size]` */
  | { unit: 'images'; quality: string; size: string }
  /** `per_request` once per unit (e.g. search units of a rerank), at least once */
  | { unit: 'requests' };

export const TOKENS: Meter = { unit: 'tokens' };

/** Exact cost of a usage under an operation's meter. */
export function priceOf(pricing: Pricing, usage: Usage, meter: Meter = TOKENS): Nano {
  switch (meter.unit) {
    case 'tokens':
      return costOf(pricing, usage);
    case 'seconds':
      return costOf(pricing, usage, 'seconds');
    case 'characters':
      return costOf(pricing, usage, 'characters');
    case 'images':
      return costOf(pricing, usage) + Math.round(usage.units) * (imagePrice(pricing, meter.quality, meter.size) ?? 0);
    case 'requests':
      return costOf(pricing, usage) + pricing.perRequest * (Math.max(1, Math.round(usage.units)) - 1);
    default: {
      const unknown: never = meter;
      throw new Error(`unknown meter ${JSON.stringify(unknown)}`);
    }
  }
}
