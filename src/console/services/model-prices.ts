import type { CatalogueModel } from '../../catalogue/catalogue.ts';
import type { PricingUsd } from '../../catalogue/pricing.ts';
import { usdOfNumber } from '../money.ts';

/** Every price field as an exact USD string (per million tokens, per image, per second…). */
export function pricesView(pricing: PricingUsd | null) {
  if (!pricing) return null;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(pricing)) {
    if (typeof value === 'number') out[field] = usdOfNumber(value);
    else if (field === 'per_image' && value) {
      out[field] = Object.fromEntries(
        Object.entries(value as Record<string, Record<string, number>>).map(([quality, sizes]) => [
          quality,
          Object.fromEntries(Object.entries(sizes).map(([size, usd]) => [size, usdOfNumber(usd)])),
        ]),
      );
    }
  }
  return out;
}

export function modelPriceView(model: CatalogueModel) {
  return { id: model.id, kind: model.kind, owned_by: model.ownedBy, pricing: pricesView(model.pricingUsd) };
}
