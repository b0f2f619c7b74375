// The system under fuzz: the real gateway (in this process) with every wire family's simulator as
// a provider (in a worker thread of their own), the accounts the cases use, a signed-in console customer and operator, and the
// gateway's error log lines (to name the cause of a 5xx).
import assert from 'node:assert/strict';
import type { Gateway } from '../../src/gateway.ts';
import { startConsoleGateway, type ConsoleGateway } from '../helpers/console.ts';
import type { ConsoleClient } from '../helpers/console-client.ts';
import { DEFAULT_MODELS, type Customer } from '../helpers/gateway.ts';
import { OPENAI_MEDIA_MODELS, GEMINI_MEDIA_MODELS } from '../helpers/media.ts';
import { REALTIME_MODELS } from '../helpers/realtime.ts';
import { SIMULATOR_KEYS as KEYS, startSimulatorThread } from './simulators.ts';

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
  const tg = await startConsoleGateway({ simulator: false, env: { MODELGATE_JOB_POLL_MS: '0' } });
  const sims = await startSimulatorThread();
  const { baseUrls } = sims;
  for (const provider of [
    { name: 'openai-sim', type: 'openai', base_url: baseUrls.openai, api_key: KEYS.openai, models: [...new Set([...DEFAULT_MODELS, ...OPENAI_MEDIA_MODELS, ...REALTIME_MODELS])] },
    { name: 'anthropic-sim', type: 'anthropic', base_url: baseUrls.anthropic, api_key: KEYS.anthropic, models: ['claude-sonnet-5'] },
    { name: 'gemini-sim', type: 'gemini', base_url: baseUrls.gemini, api_key: KEYS.gemini, models: ['gemini-3-flash-preview'] },
    { name: 'gemini-media-sim', type: 'gemini', base_url: baseUrls.geminiMedia, api_key: KEYS.geminiMedia, models: GEMINI_MEDIA_MODELS },
    { name: 'cohere-sim', type: 'cohere', base_url: baseUrls.cohere, api_key: KEYS.cohere, models: ['rerank-v3.5'] },
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
    forgetRecordings: () => sims.forget(),
    async close() {
      await tg.close();
      await sims.close();
    },
  };
}
