import type { CatalogueModel } from '../core/contracts/catalogue-model.ts';
import type { AdminDeps } from './deps.ts';
import type { ModelPut } from './schemas.ts';

export function modelView(deps: AdminDeps, model: CatalogueModel) {
  return {
    id: model.id,
    kind: model.kind,
    family: model.family,
    owned_by: model.ownedBy,
    capabilities: model.capabilities,
    max_output_tokens: model.maxOutputTokens,
    pricing: model.pricingUsd ?? {},
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
