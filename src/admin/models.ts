import type { CatalogueModel } from '../core/contracts/catalogue-model.ts';
import type { Gateway } from '../gateway.ts';
import type { ModelPut } from './schemas.ts';

export function modelView(gateway: Gateway, model: CatalogueModel) {
  return {
    id: model.id,
    kind: model.kind,
    family: model.family,
    owned_by: model.ownedBy,
    capabilities: model.capabilities,
    max_output_tokens: model.maxOutputTokens,
    pricing: model.pricingUsd ?? {},
    pricing_source: model.pricingSource,
    served_by: gateway.router
      .all()
      .filter((p) => p.record.enabled && p.record.models.includes(model.id))
      .map((p) => p.record.id),
  };
}

/** Every known model, plus models providers serve that no catalogue entry describes. */
export function listModels(gateway: Gateway): CatalogueModel[] {
  const ids = new Set([...gateway.catalogue.list().map((m) => m.id), ...gateway.router.servedModels()]);
  return [...ids].sort().map((id) => gateway.catalogue.get(id));
}

export async function putModel(gateway: Gateway, id: string, body: ModelPut): Promise<CatalogueModel> {
  const current = gateway.catalogue.get(id);
  const pricing = body.pricing ?? (current.pricingSource === 'override' ? current.pricingUsd : null);
  await gateway.repos.modelOverrides.upsert(id, pricing as Record<string, unknown> | null, body.capabilities ?? null);
  await gateway.sync.now();
  return gateway.catalogue.get(id);
}
