// The system under fuzz: the real gateway (in this process) with every wire family's simulator as
// a provider, the accounts the cases use, a signed-in console customer and operator, and the
// gateway's error log lines (to name the cause of a 5xx).
import assert from 'node:assert/strict';
import type { Gateway } from '../../src/gateway.ts';
import { startAnthropicSimulator } from '../../src/vendors/anthropic/simulator/server.ts';
import { startCohereSimulator } from '../../src/vendors/cohere/simulator/server.ts';
import { startGeminiMediaSimulator } from '../../src/vendors/gemini/simulator/media-server.ts';
import { startGeminiSimulator } from '../../src/vendors/gemini/simulator/server.ts';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';
import type { ConsoleClient } from '../helpers/console-client.ts';
import { DEFAULT_MODELS, type Customer } from '../helpers/gateway.ts';
import { OPENAI_MEDIA_MODELS, GEMINI_MEDIA_MODELS } from '../helpers/media.ts';
import { REALTIME_MODELS } from '../helpers/realtime.ts';

export interface ErrorLine {
  reqId: string | undefined;
  msg: string;
  err: string | undefined;
}

export interface World {
  tg: ConsoleGateway;
  gateway: Gateway;
  accounts: { exact: Customer; failing: Customer; broken: Customer; sandbox: Customer };
  sandboxKeyId: string;
  customer: ConsoleClient & { accountId: string; keyId: string };
  operator: ConsoleClient;
  /** error (and fatal) log lines of the gateway, oldest first */
  errors: ErrorLine[];
  /** forget what the simulators recorded (they keep every request's body) */
  forgetRecordings(): void;
  close(): Promise<void>;
}

const unlimited = { rpm: 100_000_000, tpm: 10_000_000_000 };

export async function startWorld(): Promise<World> {
  const tg = await startConsoleGateway({
    models: [...new Set([...DEFAULT_MODELS, ...OPENAI_MEDIA_MODELS, ...REALTIME_MODELS])],
    simulator: { recordRequests: false },
    env: { MODELGATE_JOB_POLL_MS: '0' },
  });
  const anthropic = await startAnthropicSimulator({ apiKey: 'fuzz-anthropic', recordRequests: false });
  const gemini = await startGeminiSimulator({ apiKey: 'fuzz-gemini', recordRequests: false });
  const geminiMedia = await startGeminiMediaSimulator({ apiKey: 'fuzz-gemini-media' });
  const cohere = await startCohereSimulator({ apiKey: 'fuzz-cohere' });
  for (const provider of [
    { name: 'anthropic-sim', type: 'anthropic', base_url: anthropic.baseUrl, api_key: 'fuzz-anthropic', models: ['claude-sonnet-5'] },
    { name: 'gemini-sim', type: 'gemini', base_url: gemini.baseUrl, api_key: 'fuzz-gemini', models: ['gemini-3-flash-preview'] },
    { name: 'gemini-media-sim', type: 'gemini', base_url: geminiMedia.baseUrl, api_key: 'fuzz-gemini-media', models: GEMINI_MEDIA_MODELS },
    { name: 'cohere-sim', type: 'cohere', base_url: cohere.baseUrl, api_key: 'fuzz-cohere', models: ['rerank-v3.5'] },
  ]) {
    const created = await tg.admin('POST', '/admin/providers', provider);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }

  const errors: ErrorLine[] = [];
  const log = tg.gateway.log as unknown as Record<'error' | 'fatal', (obj: unknown, msg?: string) => void>;
  for (const level of ['error', 'fatal'] as const) {
    log[level] = (obj: unknown, msg?: string) => {
      const fields = (typeof obj === 'object' && obj !== null ? obj : {}) as { reqId?: string; err?: unknown };
      const err = fields.err instanceof Error ? `${fields.err.name}: ${fields.err.message}` : fields.err === undefined ? undefined : String(fields.err);
      errors.push({ reqId: fields.reqId, msg: typeof obj === 'string' ? obj : (msg ?? ''), err });
    };
  }

  const [exact, failing, broken, sandbox] = [await tg.customer(100_000, unlimited), await tg.customer(100_000, unlimited), await tg.customer(100_000, unlimited), await tg.customer(10, unlimited)];
  const sandboxKey = await tg.admin('POST', `/admin/accounts/${sandbox.accountId}/keys`, { name: 'fuzzed' });
  assert.equal(sandboxKey.status, 201);

  const registered = await tg.registerCustomer(5);
  const key = await registered.client.post('/console/api/keys', { name: 'fuzzed' });
  assert.equal(key.status, 201, key.text);
  const customer = Object.assign(registered.client, { accountId: registered.accountId, keyId: key.body.key.id as string });
  const operator = await tg.operator();

  return {
    tg,
    gateway: tg.gateway,
    accounts: { exact, failing, broken, sandbox },
    sandboxKeyId: sandboxKey.body.id,
    customer,
    operator,
    errors,
    forgetRecordings() {
      geminiMedia.state.requests.length = 0;
      geminiMedia.state.failures.length = 0;
      cohere.requests.length = 0;
    },
    async close() {
      await tg.close();
      await Promise.all([anthropic.close(), gemini.close(), geminiMedia.close(), cohere.close()]);
    },
  };
}
