import { CostSum, usdToNano, type Nano } from '../core/money.ts';
import type { Usage } from '../core/usage.ts';

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
}

export function toPricing(usd: PricingUsd): Pricing {
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
export function costOf(pricing: Pricing, usage: Usage, unitKind: 'none' | 'seconds' | 'characters' = 'none'): Nano {
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
  return tokens + seconds + pricing.perRequest;
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
