// One upstream of each wire family, registered as a provider of a test gateway: the family's own
// simulator behind a uniform handle, so the conformance suite and the end-to-end suites run the
// same scenarios against every family.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import type { Scenario } from '../../simulators/_kit/scenarios.ts';
import { startAnthropicSimulator } from '../../simulators/anthropic/server.ts';
import { startGeminiSimulator } from '../../simulators/gemini/server.ts';
import { startOpenAISimulator } from '../../simulators/openai/server.ts';
import type { TestGateway } from './gateway.ts';

export type FamilyName = 'openai' | 'anthropic' | 'gemini';
export const FAMILIES: readonly FamilyName[] = ['openai', 'anthropic', 'gemini'];

/** The chat model each family serves in the suites (Gemini 3: thought signatures are checked). */
export const CHAT_MODEL: Record<FamilyName, string> = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-5', gemini: 'gemini-3-flash-preview' };

export interface SimOptions {
  latencyMs?: number;
  chunkDelayMs?: number;
  streamChunks?: number;
}

export interface UpstreamRequestRecord {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FamilyUpstream {
  family: FamilyName;
  name: string;
  providerId: string;
  apiKey: string;
  baseUrl: string;
  port: number;
  enqueue(...scenarios: Scenario[]): void;
  readonly requests: UpstreamRequestRecord[];
  reset(): void;
  close(): Promise<void>;
}

export interface FamilyProviderOptions {
  name?: string;
  models?: string[];
  priority?: number;
  modelMap?: Record<string, string>;
  simulator?: SimOptions;
}

export async function startFamilySimulator(family: FamilyName, apiKey: string, options: SimOptions = {}) {
  switch (family) {
    case 'openai':
      return startOpenAISimulator({ apiKey, ...options });
    case 'anthropic':
      return startAnthropicSimulator({ apiKey, ...options });
    case 'gemini':
      return startGeminiSimulator({ apiKey, ...options });
  }
}

/** Starts `family`'s simulator and registers it as a provider of `tg`. */
export async function addFamilyProvider(tg: TestGateway, family: FamilyName, options: FamilyProviderOptions = {}): Promise<FamilyUpstream> {
  const name = options.name ?? `${family}-upstream`;
  const apiKey = `key-${name}`;
  const sim = await startFamilySimulator(family, apiKey, options.simulator);
  const created = await tg.admin('POST', '/admin/providers', {
    name,
    type: family,
    base_url: sim.baseUrl,
    api_key: apiKey,
    models: options.models ?? [CHAT_MODEL[family]],
    ...(options.priority !== undefined && { priority: options.priority }),
    ...(options.modelMap && { model_map: options.modelMap }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return {
    family,
    name,
    providerId: created.body.id,
    apiKey,
    baseUrl: sim.baseUrl,
    port: sim.port,
    enqueue: (...scenarios) => sim.enqueue(...scenarios),
    get requests() {
      return sim.requests;
    },
    reset: () => sim.reset(),
    close: () => sim.close(),
  };
}
