import { putModel } from '../admin/models.ts';
import { upsertProvider } from '../admin/providers.ts';
import { adapters } from '../vendors/registry.ts';
import type { StartupDeps } from './deps.ts';

/** MODELGATE_CONFIG: providers upserted by name, model prices and capabilities applied. Idempotent. */
export async function applyYamlConfig(deps: StartupDeps): Promise<void> {
  const yaml = deps.config.yaml;
  if (!yaml) return;
  for (const provider of yaml.providers ?? []) await upsertProvider(deps, provider);
  for (const [model, body] of Object.entries(yaml.models ?? {})) await putModel(deps, model, body);
  deps.log.info({ providers: yaml.providers?.length ?? 0, models: Object.keys(yaml.models ?? {}).length }, 'applied MODELGATE_CONFIG');
}

/** OPENAI_API_KEY and friends: a provider of that family at the vendor's public address, with its well-known models. */
export async function applyQuickStart(deps: StartupDeps): Promise<void> {
  for (const adapter of Object.values(adapters)) {
    const { envVar, family, defaultBaseUrl, models } = adapter.manifest;
    const apiKey = deps.config.quickStartKeys[envVar];
    if (!apiKey) continue;
    const modelMap = Object.fromEntries(models.filter((m) => m.upstreamId).map((m) => [m.id, m.upstreamId!]));
    await upsertProvider(deps, { name: family, type: family, base_url: defaultBaseUrl, api_key: apiKey, models: models.map((m) => m.id), model_map: modelMap });
    deps.log.info({ provider: family }, `provider "${family}" configured from ${envVar}`);
  }
}
