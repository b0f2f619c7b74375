import type { CatalogueModel } from '../core/contracts/catalogue-model.ts';
import { usdStringOfNumber } from '../core/money.ts';
import type { PricingUsd } from '../core/pricing.ts';
import type { AdminDeps } from './deps.ts';
import type { ModelPut } from './schemas.ts';

/** How a view shows a price table: as stored (USD numbers, the admin API) or as exact strings (the console). */
export type PriceFormat = (pricing: PricingUsd | null) => object;
const pricesAsStored: PriceFormat = (pricing) => pricing ?? {};
export const pricesAsStrings: PriceFormat = (pricing) => priceStrings(pricing) ?? {};

export function modelView(deps: AdminDeps, model: CatalogueModel, prices: PriceFormat = pricesAsStored) {
  return {
    id: model.id,
    kind: model.kind,
    family: model.family,
    owned_by: model.ownedBy,
    capabilities: model.capabilities,
    max_output_tokens: model.maxOutputTokens,
    pricing: prices(model.pricingUsd),
    pricing_source: model.pricingSource,
    served_by: deps.router
      .all()
      .filter((p) => p.record.enabled && p.record.models.includes(model.id))
      .map((p) => p.record.id),
  };
}

/** Every known model, plus models providers serve that no catalogue entry describes. */
export function listModels(deps: AdminDeps): CatalogueModel[] {
  const ids = new Set([...deps.catalogue.list().map((m) => m.id), ...deps.router.servedModels()]);
  return [...ids].sort().map((id) => deps.catalogue.get(id));
}

export async function putModel(deps: AdminDeps, id: string, body: ModelPut): Promise<CatalogueModel> {
  const current = deps.catalogue.get(id);
  const pricing = body.pricing ?? (current.pricingSource === 'override' ? current.pricingUsd : null);
  await deps.repos.modelOverrides.upsert(id, pricing as Record<string, unknown> | null, body.capabilities ?? null);
  await deps.sync.now();
  return deps.catalogue.get(id);
}

/**
 * Every price field as an exact USD string (per million tokens, per image, per second, per tool
 * call, per service tier…), nested tables included; `threshold_tokens` is a count, not a price.
 */
export function priceStrings(pricing: PricingUsd | null): Record<string, unknown> | null {
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

/** A served model and its prices as the console's customers see them. */
export function modelPriceView(model: CatalogueModel) {
  return { id: model.id, kind: model.kind, owned_by: model.ownedBy, pricing: priceStrings(model.pricingUsd) };
}
