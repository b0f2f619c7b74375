import { GatewayError, invalidRequest, notFound } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { AdminDeps } from './deps.ts';
import type { ProviderRecord } from '../store/repositories/providers.ts';
import { adapterFor, familyNames, providerBaseUrl } from '../vendors/registry.ts';
import type { ProviderCreate, ProviderPatchBody } from './schemas.ts';

export function providerView(deps: AdminDeps, record: ProviderRecord) {
  const runtime = deps.router.get(record.id);
  return {
    id: record.id,
    name: record.name,
    type: record.type,
    // rows saved before base URLs were normalised are shown healed
    base_url: providerBaseUrl(record.type, record.baseUrl),
    // the upstream key is write-only: only its last characters identify it
    api_key_preview: record.apiKey ? `…${record.apiKey.slice(-4)}` : '',
    models: record.models,
    model_map: record.modelMap,
    priority: record.priority,
    weight: record.weight,
    enabled: record.enabled,
    settings: { ...record.settings },
    health: runtime ? runtime.breaker.state() : 'unknown',
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
}

function checkType(type: string): void {
  if (!adapterFor(type)) {
    throw invalidRequest(`type must be one of: ${familyNames().join(', ')} (got "${type}")`, 'type');
  }
}

function checkModelMap(models: string[], modelMap: Record<string, string>): void {
  for (const model of Object.keys(modelMap)) {
    if (!models.includes(model)) throw invalidRequest(`model_map renames "${model}", which is not in models`, 'model_map');
  }
}

function nameTaken(name: string): GatewayError {
  return new GatewayError({ status: 409, type: 'invalid_request_error', message: `A provider named "${name}" already exists.`, param: 'name', code: 'conflict' });
}

export async function createProvider(deps: AdminDeps, body: ProviderCreate, extraSettings: Record<string, unknown> = {}): Promise<ProviderRecord> {
  checkType(body.type);
  checkModelMap(body.models, body.model_map ?? {});
  if (await deps.repos.providers.findByName(body.name)) throw nameTaken(body.name);
  const record = await deps.repos.providers.insert({
    id: newId('prov'),
    name: body.name,
    type: body.type,
    baseUrl: providerBaseUrl(body.type, body.base_url),
    apiKey: body.api_key,
    models: [...new Set(body.models)],
    modelMap: body.model_map ?? {},
    priority: body.priority ?? 0,
    weight: body.weight ?? 1,
    enabled: body.enabled ?? true,
    settings: { ...(body.settings ?? {}), ...extraSettings },
  });
  await deps.sync.refresh();
  return record;
}

export async function updateProvider(deps: AdminDeps, id: string, body: ProviderPatchBody): Promise<ProviderRecord> {
  const current = await findProvider(deps, id);
  if (body.type !== undefined) checkType(body.type);
  checkModelMap(body.models ?? current.models, body.model_map ?? current.modelMap);
  if (body.name !== undefined && body.name !== current.name && (await deps.repos.providers.findByName(body.name))) throw nameTaken(body.name);
  const updated = await deps.repos.providers.update(id, {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.type !== undefined && { type: body.type }),
    // a new type or a new URL: the URL in the form the (new) family's adapter appends paths to
    ...((body.base_url !== undefined || body.type !== undefined) && { baseUrl: providerBaseUrl(body.type ?? current.type, body.base_url ?? current.baseUrl) }),
    ...(body.api_key !== undefined && { apiKey: body.api_key }),
    ...(body.models !== undefined && { models: [...new Set(body.models)] }),
    ...(body.model_map !== undefined && { modelMap: body.model_map }),
    ...(body.priority !== undefined && { priority: body.priority }),
    ...(body.weight !== undefined && { weight: body.weight }),
    ...(body.enabled !== undefined && { enabled: body.enabled }),
    ...(body.settings !== undefined && { settings: { ...current.settings, ...body.settings } }),
  });
  if (!updated) throw providerNotFound(id);
  await deps.sync.refresh();
  return updated;
}

export async function removeProvider(deps: AdminDeps, id: string): Promise<void> {
  if (!(await deps.repos.providers.remove(id))) throw providerNotFound(id);
  await deps.sync.refresh();
}

/** YAML and quick start: create by name, or bring the existing one to the declared state. */
export async function upsertProvider(deps: AdminDeps, body: ProviderCreate): Promise<ProviderRecord> {
  const existing = await deps.repos.providers.findByName(body.name);
  return existing ? updateProvider(deps, existing.id, body) : createProvider(deps, body);
}

export async function findProvider(deps: AdminDeps, id: string): Promise<ProviderRecord> {
  const record = await deps.repos.providers.get(id);
  if (!record) throw providerNotFound(id);
  return record;
}

export async function listProviders(deps: AdminDeps): Promise<ProviderRecord[]> {
  return deps.repos.providers.list();
}

const providerNotFound = (id: string) => notFound(`No provider with id "${id}".`, 'id');
