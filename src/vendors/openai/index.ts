import { randomBase62 } from '../../core/ids.ts';
import type { ProviderAdapter } from '../../core/contracts/provider-adapter.ts';
import { openaiSpeech, openaiTranscriptions } from './audio.ts';
import { openaiChat } from './chat.ts';
import { openaiCompletions } from './completions.ts';
import { openaiEmbeddings } from './embeddings.ts';
import { openaiImageEdits, openaiImages, openaiImageVariations } from './images.ts';
import { openaiHealthProbe } from './health-probe.ts';
import { openaiManifest } from './manifest.ts';
import { openaiModerations } from './moderations.ts';
import { openaiRerank } from './rerank.ts';
import { openaiVideos } from './videos.ts';
import { openaiRealtime } from './realtime.ts';

export const openaiAdapter: ProviderAdapter = {
  manifest: openaiManifest,
  healthProbe: openaiHealthProbe,
  operations: {
    chat: openaiChat,
    completions: openaiCompletions,
    embeddings: openaiEmbeddings,
    transcriptions: openaiTranscriptions,
    speech: openaiSpeech,
    images: openaiImages,
    imageEdits: openaiImageEdits,
    imageVariations: openaiImageVariations,
    moderations: openaiModerations,
    rerank: openaiRerank,
    videos: openaiVideos,
    realtime: openaiRealtime,
  },
  async startSimulator() {
    const { startOpenAISimulator } = await import('./simulator/server.ts');
    const apiKey = `sim-${randomBase62(24)}`;
    const simulator = await startOpenAISimulator({ apiKey });
    // the simulator answers every model of the family's manifest, media included
    const models = openaiManifest.models.map((m) => m.id);
    return { baseUrl: simulator.baseUrl, apiKey, models, close: () => simulator.close() };
  },
};
