import { anthropicAdapter } from './anthropic/index.ts';
import { cohereAdapter } from './cohere/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { openaiAdapter } from './openai/index.ts';
import { setToolCallIdKey } from './_kit/tool-call-id.ts';
import { normalizeBaseUrl } from '../core/base-url.ts';
import type { ProviderAdapter } from '../core/contracts/provider-adapter.ts';

/** The only list of wire families. Adding a vendor family = one folder + one line here. */
export const adapters: Readonly<Record<string, ProviderAdapter>> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  cohere: cohereAdapter,
};

export const familyNames = (): string[] => Object.keys(adapters);

export function adapterFor(family: string): ProviderAdapter | undefined {
  return Object.hasOwn(adapters, family) ? adapters[family] : undefined;
}

/** A provider's base URL in its family's normal form (see core/base-url.ts). */
export function providerBaseUrl(family: string, baseUrl: string): string {
  return normalizeBaseUrl(adapterFor(family)?.manifest.versionSegment, baseUrl);
}

/**
 * What the families need from the running gateway before the first call: the key that signs the
 * vendor state they carry in tool-call ids (shared by every instance, so each reads the others').
 */
export function configureVendors(settings: { toolCallIdKey: string }): void {
  setToolCallIdKey(settings.toolCallIdKey);
}
