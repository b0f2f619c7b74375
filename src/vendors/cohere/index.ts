import type { ProviderAdapter } from '../../core/contracts/provider-adapter.ts';
import { cohereManifest } from './manifest.ts';
import { cohereRerank } from './rerank.ts';

export const cohereAdapter: ProviderAdapter = {
  manifest: cohereManifest,
  operations: { rerank: cohereRerank },
};
