import { randomBase62 } from '../../core/ids.ts';
import type { ProviderAdapter } from '../../core/contracts/provider-adapter.ts';
import { cohereManifest } from './manifest.ts';
import { cohereRerank } from './rerank.ts';

export const cohereAdapter: ProviderAdapter = {
  manifest: cohereManifest,
  operations: { rerank: cohereRerank },
  async startSimulator() {
    const { startCohereSimulator } = await import('./simulator/server.ts');
    const apiKey = `sim-${randomBase62(24)}`;
    const simulator = await startCohereSimulator({ apiKey });
    return { baseUrl: simulator.baseUrl, apiKey, models: cohereManifest.models.map((m) => m.id), close: () => simulator.close() };
  },
};
