import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/env.ts';
import { closeGateway, createGateway, type Gateway } from '../../src/gateway.ts';
import { closeApp } from '../../src/http/close-app.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startOpenAISimulator, type OpenAISimulator, type OpenAISimulatorOptions } from '../../simulators/openai/server.ts';

export const ADMIN_TOKEN = 'test-admin-token';

export interface TestGatewayOptions {
  /** default `sqlite::memory:` */
  databaseUrl?: string;
  /** extra environment for loadConfig (MODELGATE_* settings) */
  env?: Record<string, string>;
  /** register one simulator-backed provider named "sim" serving these models (default: a chat, a completion and the embedding models) */
  models?: string[];
  /** false: start no simulator and register no provider */
  simulator?: false | Partial<OpenAISimulatorOptions>;
  /** LOG_LEVEL for the gateway (default silent; set MODELGATE_TEST_LOG=info to see logs) */
  logLevel?: string;
}

export interface AdminResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Customer {
  accountId: string;
  keyId: string;
  key: string;
}

export interface TestGateway {
  /** base URL including /v1, what SDKs are given */
  baseURL: string;
  origin: string;
  gateway: Gateway;
  app: FastifyInstance;
  sim: OpenAISimulator | undefined;
  providerId: string | undefined;
  admin<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<AdminResponse<T>>;
  /** an account with `creditUsd` and one key (options as the admin API takes them) */
  customer(creditUsd: number, keyOptions?: Record<string, unknown>): Promise<Customer>;
  /** durable writes, then: journal sum = balance, no open reservation */
  assertBillingInvariants(accountId: string): Promise<void>;
  balanceNano(accountId: string): number;
  close(): Promise<void>;
}

export const DEFAULT_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-3.5-turbo-instruct', 'text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002'];

/** A real gateway on 127.0.0.1:0 with its own database and (by default) an OpenAI-family simulator as provider. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  // removed on close: a suite run left ~300 of them in the temporary directory
  const mediaRoot = mkdtempSync(join(tmpdir(), 'modelgate-test-media-'));
  const settlementsRoot = mkdtempSync(join(tmpdir(), 'modelgate-test-settlements-'));
  const config: Config = loadConfig({
    DATABASE_URL: options.databaseUrl ?? 'sqlite::memory:',
    MODELGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    MODELGATE_DEMO: 'off',
    PORT: '0',
    MODELGATE_SYNC_INTERVAL_MS: '50',
    // scheduled health probes would add requests to the simulators' counts: on only where a test asks
    MODELGATE_HEALTH_INTERVAL_MS: '0',
    // stored media, settlement logs and spooled uploads in directories of the test's own
    MODELGATE_MEDIA_DIR: join(mediaRoot, 'media'),
    MODELGATE_SETTLEMENT_LOG_DIR: join(settlementsRoot, 'settlements'),
    MODELGATE_UPLOAD_DIR: join(tmpdir(), 'modelgate-test-uploads'),
    ...options.env,
  });
  const level = options.logLevel ?? process.env.MODELGATE_TEST_LOG ?? 'silent';
  const log = level === 'silent' ? pino({ level: 'silent' }) : createLogger(level, pino.destination(2));
  const gateway = await createGateway(config, log);
  const app = await buildApp(gateway);
  await app.listen({ port: 0, host: '127.0.0.1' });
  gateway.ready = true;
  const address = app.server.address();
  assert(address && typeof address === 'object');
  const origin = `http://127.0.0.1:${address.port}`;
  if (!options.env?.PUBLIC_BASE_URL) gateway.media.setPublicBaseUrl(origin);

  const admin = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<AdminResponse<T>> => {
    const res = await fetch(origin + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
  };

  let sim: OpenAISimulator | undefined;
  let providerId: string | undefined;
  if (options.simulator !== false) {
    sim = await startOpenAISimulator({ apiKey: 'sim-upstream-key', ...(options.simulator ?? {}) });
    const created = await admin('POST', '/admin/providers', {
      name: 'sim',
      type: 'openai',
      base_url: sim.baseUrl,
      api_key: 'sim-upstream-key',
      models: options.models ?? DEFAULT_MODELS,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    providerId = created.body.id;
  }

  return {
    baseURL: `${origin}/v1`,
    origin,
    gateway,
    app,
    sim,
    providerId,
    admin,
    async customer(creditUsd, keyOptions = {}) {
      const account = await admin('POST', '/admin/accounts', { name: `customer-${Math.random().toString(36).slice(2, 8)}` });
      assert.equal(account.status, 201);
      if (creditUsd !== 0) {
        const credit = await admin('POST', `/admin/accounts/${account.body.id}/credit`, { amount_usd: creditUsd });
        assert.equal(credit.status, 200, JSON.stringify(credit.body));
      }
      const key = await admin('POST', `/admin/accounts/${account.body.id}/keys`, keyOptions);
      assert.equal(key.status, 201, JSON.stringify(key.body));
      return { accountId: account.body.id, keyId: key.body.id, key: key.body.key };
    },
    async assertBillingInvariants(accountId) {
      await gateway.sync.now();
      assert.equal(gateway.ledger.openReservations, 0, 'no reservation may stay open');
      assert.equal(gateway.ledger.reserved(accountId), 0, 'no amount may stay reserved');
      const journal = await gateway.repos.ledger.sumByAccount(accountId);
      const account = await gateway.repos.accounts.get(accountId);
      assert.equal(account?.balanceNano, journal, 'stored balance must equal the journal sum');
      assert.equal(gateway.ledger.balance(accountId), journal, 'in-memory balance must equal the journal sum');
    },
    balanceNano(accountId) {
      return gateway.ledger.balance(accountId) ?? Number.NaN;
    },
    async close() {
      await closeApp(app, config.shutdownGraceMs);
      await closeGateway(gateway);
      await sim?.close();
      for (const dir of [mediaRoot, settlementsRoot]) rmSync(dir, { recursive: true, force: true });
    },
  };
}
