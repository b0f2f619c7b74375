import type { ProviderAdapter } from '../../core/contracts/provider-adapter.ts';
import { geminiChat } from './chat.ts';
import { geminiEmbeddings } from './embeddings.ts';
import { geminiHealthProbe } from './health-probe.ts';
import { geminiManifest } from './manifest.ts';
import { geminiPredict } from './predict.ts';
import { geminiVideo } from './video.ts';

export const geminiAdapter: ProviderAdapter = {
  manifest: geminiManifest,
  healthProbe: geminiHealthProbe,
  operations: {
    chat: geminiChat,
    embeddings: geminiEmbeddings,
    // image generation through native prediction, video through long-running operations
    images: geminiPredict,
    videos: geminiVideo,
  },
};
