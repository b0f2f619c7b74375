import type { ModelOverrideRecord } from '../store/repositories/model-overrides.ts';
import type { KnownModel, ModelKind, ProviderAdapter } from '../core/contracts/provider-adapter.ts';
import type { CatalogueModel } from '../core/contracts/catalogue-model.ts';
import { FREE, toPricing, type PricingUsd } from '../core/pricing.ts';

/**
 * Every model the gateway knows: the vendor manifests' well-known models with default prices,
 * overlaid with operator overrides (which may also add models no manifest names). Held in
 * memory; overrides arrive through the state sync.
 */
export class Catalogue {
  private readonly builtIn = new Map<string, { model: KnownModel; family: string; ownedBy: string }>();
  private readonly overrides = new Map<string, ModelOverrideRecord>();
  private readonly resolved = new Map<string, CatalogueModel>();

  /** whether a configured provider route serves the id (the router's answer) */
  private readonly served: (id: string) => boolean;

  constructor(adapters: Iterable<ProviderAdapter>, served: (id: string) => boolean = () => false) {
    this.served = served;
    for (const adapter of adapters) {
      for (const model of adapter.manifest.models) {
        this.builtIn.set(model.id, { model, family: adapter.manifest.family, ownedBy: adapter.manifest.ownedBy });
      }
    }
  }

  applyOverride(record: ModelOverrideRecord): void {
    this.overrides.set(record.model, record);
    this.resolved.delete(record.model);
  }

  /** The model's entry; models nobody described resolve to an unpriced entry. */
  get(id: string): CatalogueModel {
    let entry = this.resolved.get(id);
    if (!entry) {
      entry = this.resolve(id);
      // clients choose the names: an id nobody described or serves is resolved afresh, never kept
      if (this.knows(id) || this.served(id)) this.resolved.set(id, entry);
    }
    return entry;
  }

  /** entries held in memory (tests: unknown ids must not grow it) */
  get cachedCount(): number {
    return this.resolved.size;
  }

  knows(id: string): boolean {
    return this.builtIn.has(id) || this.overrides.has(id);
  }

  list(): CatalogueModel[] {
    const ids = new Set([...this.builtIn.keys(), ...this.overrides.keys()]);
    return [...ids].sort().map((id) => this.get(id));
  }

  private resolve(id: string): CatalogueModel {
    const known = this.builtIn.get(id);
    const override = this.overrides.get(id);
    const overridePricing = override?.pricing as PricingUsd | null | undefined;
    const pricingUsd = overridePricing ?? known?.model.pricing ?? null;
    const capabilities = { ...(known?.model.capabilities ?? {}), ...(override?.capabilities ?? {}) };
    const kind = (typeof capabilities.kind === 'string' ? capabilities.kind : known?.model.kind) as ModelKind | undefined;
    return {
      id,
      kind: kind ?? null,
      family: known?.family ?? null,
      ownedBy: known?.ownedBy ?? 'modelgate',
      capabilities,
      pricingUsd,
      pricing: pricingUsd ? toPricing(pricingUsd) : FREE,
      priced: pricingUsd !== null,
      pricingSource: overridePricing ? 'override' : known ? 'default' : 'none',
      maxOutputTokens: positiveInt(capabilities.max_output_tokens) ?? known?.model.maxOutputTokens ?? null,
    };
  }
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
