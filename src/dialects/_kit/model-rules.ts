import type { CatalogueModel } from '../../core/contracts/catalogue-model.ts';
import { invalidRequest } from '../../core/errors.ts';
import type { ModelKind } from '../../core/contracts/provider-adapter.ts';

/** The capabilities a decoder reads, typed at the point of use. */
export const caps = {
  list(model: CatalogueModel, name: string): string[] | undefined {
    const value = model.capabilities[name];
    return Array.isArray(value) ? value.map(String) : undefined;
  },
  numbers(model: CatalogueModel, name: string): number[] | undefined {
    const value = model.capabilities[name];
    return Array.isArray(value) ? value.map(Number) : undefined;
  },
  number(model: CatalogueModel, name: string): number | undefined {
    const value = model.capabilities[name];
    return typeof value === 'number' ? value : undefined;
  },
  string(model: CatalogueModel, name: string): string | undefined {
    const value = model.capabilities[name];
    return typeof value === 'string' ? value : undefined;
  },
  flag(model: CatalogueModel, name: string): boolean {
    return model.capabilities[name] === true;
  },
  record<T>(model: CatalogueModel, name: string): Record<string, T> | undefined {
    const value = model.capabilities[name];
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, T>) : undefined;
  },
};

/** A model the catalogue knows as another kind cannot serve this endpoint; unknown models pass (no rules to apply). */
export function requireKind(model: CatalogueModel, kind: ModelKind, endpoint: string): void {
  if (model.kind !== null && model.kind !== kind) {
    throw invalidRequest(`The model "${model.id}" is a ${model.kind} model; ${endpoint} takes ${kind} models.`, 'model', 'model_not_supported');
  }
}

export function oneOf(value: string, allowed: readonly string[], param: string, rule: string): void {
  if (!allowed.includes(value)) throw invalidRequest(`Invalid value for '${param}': ${rule} allows ${allowed.map((a) => `'${a}'`).join(', ')} (got '${value}').`, param);
}
