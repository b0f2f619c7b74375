// The upstreams of the fuzz run, in a worker thread: the simulators make real images and audio
// (a 1024² PNG is ~130 ms of CPU), and in the gateway's thread that work would count in the
// gateway's event-loop delay. Here they have a loop of their own; the gateway reaches them over
// loopback HTTP exactly as before.
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { startAnthropicSimulator } from '../../simulators/anthropic/server.ts';
import { startCohereSimulator } from '../../simulators/cohere/server.ts';
import { startGeminiMediaSimulator } from '../../simulators/gemini/media-server.ts';
import { startGeminiSimulator } from '../../simulators/gemini/server.ts';
import { startOpenAISimulator } from '../../simulators/openai/server.ts';

export type SimulatorName = 'openai' | 'anthropic' | 'gemini' | 'geminiMedia' | 'cohere';

/** Each simulator's upstream key (what the provider is registered with). */
export const SIMULATOR_KEYS: Record<SimulatorName, string> = {
  openai: 'fuzz-openai',
  anthropic: 'fuzz-anthropic',
  gemini: 'fuzz-gemini',
  geminiMedia: 'fuzz-gemini-media',
  cohere: 'fuzz-cohere',
};

export interface SimulatorThread {
  baseUrls: Record<SimulatorName, string>;
  /** drops what the recording simulators kept of past requests */
  forget(): void;
  close(): Promise<void>;
}

export async function startSimulatorThread(): Promise<SimulatorThread> {
  const worker = new Worker(new URL(import.meta.url));
  const baseUrls = await new Promise<Record<SimulatorName, string>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    baseUrls,
    forget: () => worker.postMessage('forget'),
    async close() {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      await exited;
    },
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const openai = await startOpenAISimulator({ apiKey: SIMULATOR_KEYS.openai, recordRequests: false });
  const anthropic = await startAnthropicSimulator({ apiKey: SIMULATOR_KEYS.anthropic, recordRequests: false });
  const gemini = await startGeminiSimulator({ apiKey: SIMULATOR_KEYS.gemini, recordRequests: false });
  const geminiMedia = await startGeminiMediaSimulator({ apiKey: SIMULATOR_KEYS.geminiMedia });
  const cohere = await startCohereSimulator({ apiKey: SIMULATOR_KEYS.cohere });
  port.on('message', async (message: 'forget' | 'close') => {
    if (message === 'forget') {
      geminiMedia.state.requests.length = 0;
      geminiMedia.state.failures.length = 0;
      cohere.requests.length = 0;
      return;
    }
    await Promise.all([openai.close(), anthropic.close(), gemini.close(), geminiMedia.close(), cohere.close()]);
    port.close();
  });
  const urls: Record<SimulatorName, string> = { openai: openai.baseUrl, anthropic: anthropic.baseUrl, gemini: gemini.baseUrl, geminiMedia: geminiMedia.baseUrl, cohere: cohere.baseUrl };
  port.postMessage(urls);
}
