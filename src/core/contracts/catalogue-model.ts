import type { Pricing, PricingUsd } from '../pricing.ts';
import type { ModelKind } from './provider-adapter.ts';

/** A model as the catalogue serves it to every layer: kind, owner, rules and prices. */
export interface CatalogueModel {
  id: string;
  kind: ModelKind | null;
  /** the family whose manifest names this model, if any */
  family: string | null;
  ownedBy: string;
  capabilities: Record<string, unknown>;
  pricingUsd: PricingUsd | null;
  pricing: Pricing;
  priced: boolean;
  pricingSource: 'default' | 'override' | 'none';
  /** the most output tokens one answer may have (`max_output_tokens` capability override, else the manifest's), when known */
  maxOutputTokens: number | null;
}
