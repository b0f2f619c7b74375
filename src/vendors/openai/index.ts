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
};
