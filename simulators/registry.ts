// The only list of vendor simulators: family name → a function that starts it on loopback with a
// fresh key. Demo mode reaches it through src/main.ts (a dynamic import, only when demo mode runs),
// so a product build can leave simulators/ out; tests start families through it too.
import { randomBase62 } from '../src/core/ids.ts';
import type { SimulatorHandle, SimulatorStarters } from '../src/core/contracts/simulator.ts';
import { startAnthropicSimulator } from './anthropic/server.ts';
import { startCohereSimulator } from './cohere/server.ts';
import { startGeminiSimulator } from './gemini/server.ts';
import { startOpenAISimulator } from './openai/server.ts';

interface Running {
  baseUrl: string;
  close(): Promise<void>;
}

async function withFreshKey(start: (options: { apiKey: string }) => Promise<Running>): Promise<SimulatorHandle> {
  const apiKey = `sim-${randomBase62(24)}`;
  const simulator = await start({ apiKey });
  return { baseUrl: simulator.baseUrl, apiKey, close: () => simulator.close() };
}

export const simulators: SimulatorStarters = {
  openai: () => withFreshKey(startOpenAISimulator),
  anthropic: () => withFreshKey(startAnthropicSimulator),
  gemini: () => withFreshKey(startGeminiSimulator),
  cohere: () => withFreshKey(startCohereSimulator),
};
