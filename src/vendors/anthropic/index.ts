import { randomBase62 } from '../../core/ids.ts';
import type { ProviderAdapter } from '../../core/contracts/provider-adapter.ts';
import { anthropicChat } from './chat.ts';
import { anthropicHealthProbe } from './health-probe.ts';
import { anthropicManifest } from './manifest.ts';
import { anthropicCountTokens, anthropicMessages } from './messages.ts';

export const anthropicAdapter: ProviderAdapter = {
  manifest: anthropicManifest,
  healthProbe: anthropicHealthProbe,
  operations: {
    chat: anthropicChat,
    messages: anthropicMessages,
    countTokens: anthropicCountTokens,
  },
  async startSimulator() {
    const { startAnthropicSimulator } = await import('./simulator/server.ts');
    const apiKey = `sim-${randomBase62(24)}`;
    const simulator = await startAnthropicSimulator({ apiKey });
    return { baseUrl: simulator.baseUrl, apiKey, models: anthropicManifest.models.map((m) => m.id), close: () => simulator.close() };
  },
};
