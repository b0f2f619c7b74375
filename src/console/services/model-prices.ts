import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import type { PricingUsd } from '../../core/pricing.ts';
import { usdStringOfNumber } from '../../core/money.ts';

/**
 * Every price field as an exact USD string (per million tokens, per image, per second, per tool
 * call, per service tier…), nested tables included; `threshold_tokens` is a count, not a price.
 */
export function pricesView(pricing: PricingUsd | null) {
  if (!pricing) return null;
  return usdStrings(pricing as Record<string, unknown>);
}

function usdStrings(table: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(table)) {
    if (field === 'threshold_tokens') out[field] = value;
    else if (typeof value === 'number') out[field] = usdStringOfNumber(value);
    else if (value && typeof value === 'object') out[field] = usdStrings(value as Record<string, unknown>);
  }
  return out;
}

export function modelPriceView(model: CatalogueModel) {
  return { id: model.id, kind: model.kind, owned_by: model.ownedBy, pricing: pricesView(model.pricingUsd) };
}
