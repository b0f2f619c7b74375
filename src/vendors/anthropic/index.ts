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
};
