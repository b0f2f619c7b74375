import { randomBase62 } from '../../core/ids.ts';
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
  async startSimulator() {
    const { startGeminiSimulator } = await import('./simulator/server.ts');
    const apiKey = `sim-${randomBase62(24)}`;
    const simulator = await startGeminiSimulator({ apiKey });
    // the simulator answers every model of the manifest: chat, embeddings and media
    return { baseUrl: simulator.baseUrl, apiKey, models: geminiManifest.models.map((m) => m.id), close: () => simulator.close() };
  },
};
