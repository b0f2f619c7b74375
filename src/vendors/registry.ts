import { anthropicAdapter } from './anthropic/index.ts';
import { cohereAdapter } from './cohere/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { openaiAdapter } from './openai/index.ts';
import type { ProviderAdapter } from './types.ts';

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
