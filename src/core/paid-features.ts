import { invalidRequest } from './errors.ts';
import type { Usage } from './usage.ts';
import type { CatalogueModel } from './contracts/catalogue-model.ts';

/**
 * Upstream features that cost money beyond the tokens (a service tier, a built-in tool billed
 * per call, audio, long context) are served only where the model's price book prices them:
 * otherwise the request is refused with a 400 naming the field, never forwarded free. What the
 * checks accept also shapes the reservation (`PaidEstimate`), so the hold covers the surcharge.
 */

/** The surcharges a request may incur, for its reservation: usage fields priced at their upper bound. */
export type PaidEstimate = Pick<Usage, 'serviceTier' | 'toolCalls' | 'longContext'> & {
  /** the answer may be audio: every output token is reserved at the audio price */
  audioOutput?: boolean;
  /** the prompt holds audio: every input token is reserved at the audio price */
  audioInput?: boolean;
};

/** Service tiers that cost the standard price (the vendors' names for "no particular tier"). */
const FREE_TIERS = new Set(['auto', 'default', 'standard', 'standard_only']);

/** The paid tier a request asks for, or undefined when it costs the standard price; refused when not priced. */
export function paidServiceTier(model: CatalogueModel, tier: unknown, param: string): string | undefined {
  if (tier === undefined || tier === null) return undefined;
  if (typeof tier !== 'string') throw invalidRequest(`${param} must be a string.`, param);
  if (FREE_TIERS.has(tier)) return undefined;
  if (!model.pricing.serviceTiers?.[tier]) {
    throw invalidRequest(`${param}: "${tier}" is not available for ${model.id}: the gateway has no price for that tier.`, param);
  }
  return tier;
}

/** A built-in tool billed per call: refused unless the model prices it. */
export function requireToolPrice(model: CatalogueModel, tool: string, param: string): void {
  if (model.pricing.perToolCall?.[tool] === undefined) {
    throw invalidRequest(`${param}: the built-in tool "${tool}" is not available for ${model.id}: the gateway has no price for its calls.`, param);
  }
}

/** Audio in the prompt or the answer: refused unless the model has the audio price. */
export function requireAudioPrice(model: CatalogueModel, direction: 'input' | 'output', param: string): void {
  const price = direction === 'input' ? model.pricing.audioInputPerMtok : model.pricing.audioOutputPerMtok;
  if (price === undefined) {
    throw invalidRequest(`${param}: audio ${direction} is not available for ${model.id}: the gateway has no price for audio ${direction} tokens.`, param);
  }
}

/** Long context (past the vendor's standard window, at its higher prices): refused unless priced. */
export function requireLongContextPrice(model: CatalogueModel, param: string, what: string): void {
  if (!model.pricing.longContext) {
    throw invalidRequest(`${param}: ${what} is not available for ${model.id}: the gateway has no long-context price for it.`, param);
  }
}

const NOTHING: Partial<Usage> = Object.freeze({});

/** The reservation's usage extras for a request's surcharges (see PaidEstimate). */
export function paidUsageBound(paid: PaidEstimate | undefined, inputTokens: number, outputTokens: number): Partial<Usage> {
  if (!paid) return NOTHING;
  const bound: Partial<Usage> = {};
  if (paid.serviceTier !== undefined) bound.serviceTier = paid.serviceTier;
  if (paid.toolCalls) bound.toolCalls = paid.toolCalls;
  if (paid.longContext) bound.longContext = true;
  if (paid.audioOutput) bound.audioOutputTokens = outputTokens;
  if (paid.audioInput) bound.audioInputTokens = inputTokens;
  return bound;
}
