// What every conformance scenario gets: a gateway whose providers are one simulator of each
// family (plus a slow twin under another public name, for aborts), and helpers to read raw SSE.
import assert from 'node:assert/strict';
import { SseDecoder, type SseEvent } from '../../src/core/sse.ts';
import { addFamilyProvider, CHAT_MODEL, FAMILIES, type FamilyName, type FamilyUpstream } from '../helpers/families.ts';
import { startTestGateway, type Customer, type TestGateway } from '../helpers/gateway.ts';
import { tapUsage, type UsageTap } from '../helpers/upstreams.ts';

export interface Suite {
  tg: TestGateway;
  tap: UsageTap;
  upstreams: Record<FamilyName, FamilyUpstream>;
  slow: Record<FamilyName, FamilyUpstream>;
  close(): Promise<void>;
}

export interface ScenarioContext {
  tg: TestGateway;
  tap: UsageTap;
  family: FamilyName;
  upstream: FamilyUpstream;
  model: string;
  /** the same upstream model behind a slow provider, under its own public name */
  slowModel: string;
  slowUpstream: FamilyUpstream;
}

export const CREDIT_USD = 5;
export const CREDIT_NANO = CREDIT_USD * 1e9;
/** a 1×1 PNG */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const IMAGE_URL = 'https://example.com/cat.png';

export const slowModelOf = (family: FamilyName) => `slow-${CHAT_MODEL[family]}`;

export async function startSuite(): Promise<Suite> {
  const tg = await startTestGateway({ simulator: false });
  const upstreams = {} as Record<FamilyName, FamilyUpstream>;
  const slow = {} as Record<FamilyName, FamilyUpstream>;
  for (const family of FAMILIES) {
    upstreams[family] = await addFamilyProvider(tg, family);
    const slowModel = slowModelOf(family);
    slow[family] = await addFamilyProvider(tg, family, {
      name: `${family}-slow`,
      models: [slowModel],
      modelMap: { [slowModel]: CHAT_MODEL[family] },
      simulator: { chunkDelayMs: 40, streamChunks: 30 },
    });
    // the renamed model costs what the real one does
    const prices = await tg.admin('GET', '/admin/models');
    const pricing = prices.body.data.find((m: { id: string }) => m.id === CHAT_MODEL[family]).pricing;
    assert.equal((await tg.admin('PUT', `/admin/models/${slowModel}`, { pricing })).status, 200);
  }
  return {
    tg,
    tap: tapUsage(tg.gateway),
    upstreams,
    slow,
    async close() {
      await tg.close();
      for (const family of FAMILIES) {
        await upstreams[family].close();
        await slow[family].close();
      }
    },
  };
}

export function contextFor(suite: Suite, family: FamilyName): ScenarioContext {
  return { tg: suite.tg, tap: suite.tap, family, upstream: suite.upstreams[family], model: CHAT_MODEL[family], slowModel: slowModelOf(family), slowUpstream: suite.slow[family] };
}

export async function newCustomer(ctx: ScenarioContext): Promise<Customer> {
  return ctx.tg.customer(CREDIT_USD);
}

/** POSTs JSON and reads the whole answer as SSE events (status and headers kept). */
export async function postSse(url: string, headers: Record<string, string>, body: unknown, signal?: AbortSignal): Promise<{ status: number; headers: Headers; events: SseEvent[]; raw: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), ...(signal && { signal }) });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const decoder = new SseDecoder();
  return { status: res.status, headers: res.headers, events: [...decoder.push(bytes), ...decoder.end()], raw: Buffer.from(bytes).toString('utf8') };
}

/** The statuses an upstream error answer becomes for the client (no other provider to try). */
export const ERROR_CLASSES: ReadonlyArray<{ upstream: number; client: number; type: string }> = [
  { upstream: 400, client: 400, type: 'invalid_request_error' },
  { upstream: 401, client: 502, type: 'server_error' },
  { upstream: 403, client: 502, type: 'server_error' },
  { upstream: 404, client: 502, type: 'server_error' },
  { upstream: 429, client: 429, type: 'rate_limit_exceeded' },
  { upstream: 500, client: 502, type: 'server_error' },
  { upstream: 503, client: 502, type: 'server_error' },
  { upstream: 529, client: 503, type: 'server_error' },
];
