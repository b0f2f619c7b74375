// Media suites: a gateway whose OpenAI-family simulator serves the media models, plus the Gemini
// media simulator (native prediction, long-running video) and the Cohere-family simulator, each
// registered as a provider. The video worker never polls on its own: tests call tick().
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startCohereSimulator, type CohereSimulator } from '../../simulators/cohere/server.ts';
import { startGeminiMediaSimulator, type GeminiMediaSimulator } from '../../simulators/gemini/media-server.ts';
import { startTestGateway, type Customer, type TestGateway, type TestGatewayOptions } from './gateway.ts';

export const OPENAI_MEDIA_MODELS = [
  'gpt-4o-mini',
  'gemini-2.5-flash-image',
  'image-a-3',
  'image-a-2',
  'image-b-1',
  'image-b-1.5',
  'tts-1',
  'tts-1-hd',
  'whisper-1',
  'gpt-4o-transcribe',
  'omni-moderation-latest',
  'jina-reranker-v2-base-multilingual',
  'sora-2',
  'sora-2-pro',
];

export const GEMINI_MEDIA_MODELS = [
  'img-c-4.0-generate-001',
  'img-c-4.0-ultra-generate-001',
  'img-c-4.0-fast-generate-001',
  'img-c-3.0-generate-002',
  'veo-3.1-generate-preview',
];

export interface MediaGateway extends TestGateway {
  gemini: GeminiMediaSimulator;
  cohere: CohereSimulator;
  client(customer: Customer): OpenAI;
  /** POST JSON with a key, raw */
  post(path: string, key: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  closeAll(): Promise<void>;
}

export async function startMediaGateway(options: TestGatewayOptions = {}): Promise<MediaGateway> {
  const tg = await startTestGateway({ models: OPENAI_MEDIA_MODELS, ...options, env: { MODELGATE_JOB_POLL_MS: '0', ...options.env } });
  const gemini = await startGeminiMediaSimulator({ apiKey: 'gemini-upstream-key' });
  const cohere = await startCohereSimulator({ apiKey: 'cohere-upstream-key' });
  for (const provider of [
    { name: 'gemini-sim', type: 'gemini', base_url: gemini.baseUrl, api_key: 'gemini-upstream-key', models: GEMINI_MEDIA_MODELS },
    { name: 'cohere-sim', type: 'cohere', base_url: cohere.baseUrl, api_key: 'cohere-upstream-key', models: ['rerank-v3.5'] },
  ]) {
    const created = await tg.admin('POST', '/admin/providers', provider);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  return {
    ...tg,
    gemini,
    cohere,
    client: (customer) => new OpenAI({ apiKey: customer.key, baseURL: tg.baseURL, maxRetries: 0 }),
    async post(path, key, body, headers = {}) {
      const res = await fetch(tg.origin + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async closeAll() {
      await tg.close();
      await gemini.close();
      await cohere.close();
    },
  };
}

/** nano-dollars of a USD price */
export const nano = (usd: number): number => Math.round(usd * 1e9);
