import { putModel } from '../admin/models.ts';
import { upsertProvider } from '../admin/providers.ts';
import type { Gateway } from '../gateway.ts';
import { adapters } from '../vendors/registry.ts';

/** MODELGATE_CONFIG: providers upserted by name, model prices and capabilities applied. Idempotent. */
export async function applyYamlConfig(gateway: Gateway): Promise<void> {
  const yaml = gateway.config.yaml;
  if (!yaml) return;
  for (const provider of yaml.providers ?? []) await upsertProvider(gateway, provider);
  for (const [model, body] of Object.entries(yaml.models ?? {})) await putModel(gateway, model, body);
  gateway.log.info({ providers: yaml.providers?.length ?? 0, models: Object.keys(yaml.models ?? {}).length }, 'applied MODELGATE_CONFIG');
}

/** OPENAI_API_KEY and friends: a provider of that family at the vendor's public address, with its well-known models. */
export async function applyQuickStart(gateway: Gateway): Promise<void> {
  for (const adapter of Object.values(adapters)) {
    const { envVar, family, defaultBaseUrl, models } = adapter.manifest;
    const apiKey = gateway.config.quickStartKeys[envVar];
    if (!apiKey) continue;
    const modelMap = Object.fromEntries(models.filter((m) => m.upstreamId).map((m) => [m.id, m.upstreamId!]));
    await upsertProvider(gateway, { name: family, type: family, base_url: defaultBaseUrl, api_key: apiKey, models: models.map((m) => m.id), model_map: modelMap });
    gateway.log.info({ provider: family }, `provider "${family}" configured from ${envVar}`);
  }
}
