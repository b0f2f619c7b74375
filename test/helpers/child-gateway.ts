// A gateway in a process of its own (`node src/main.ts`), for what an in-process gateway cannot
// show: a process killed with SIGKILL, and what the next one finds on the same database.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ADMIN_TOKEN, type Customer } from './gateway.ts';

export interface ChildGateway {
  origin: string;
  /** base URL including /v1 */
  baseURL: string;
  child: ChildProcessWithoutNullStreams;
  /** everything the process wrote (its JSON log lines) */
  output(): string;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  kill9(): Promise<void>;
  /** SIGTERM, and waits for the exit (a clean shutdown flushes everything) */
  stop(): Promise<number | null>;
}

/** Starts `node src/main.ts` (or another entry, `main`) with `env` and resolves once it listens. */
export async function startChildGateway(env: Record<string, string>, main = 'src/main.ts'): Promise<ChildGateway> {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: '0', MODELGATE_DEMO: 'off', MODELGATE_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'info', MODELGATE_HEALTH_INTERVAL_MS: '0', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const origin = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const url = /modelgate listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)?.[1];
      if (url) {
        child.stdout.off('data', look);
        resolve(url);
      }
    };
    child.stdout.on('data', look);
    void exited.then((code) => reject(new Error(`the gateway exited (${code}) before listening:\n${output}`)));
  });
  const admin = async <T = any>(method: string, path: string, body?: unknown) => {
    const res = await fetch(origin + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  return {
    origin,
    baseURL: `${origin}/v1`,
    child,
    output: () => output,
    admin,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A provider named "sim" at `simBaseUrl` serving gpt-4o-mini (and video-capable models when listed). */
export async function addSimProvider(gateway: ChildGateway, simBaseUrl: string, models = ['gpt-4o-mini']): Promise<void> {
  const created = await gateway.admin('POST', '/admin/providers', { name: 'sim', type: 'openai', base_url: simBaseUrl, api_key: 'sim-upstream-key', models });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

/** An account with `creditUsd` and one key, through the admin API. */
export async function addCustomer(gateway: ChildGateway, creditUsd: number): Promise<Customer> {
  const account = await gateway.admin('POST', '/admin/accounts', { name: `customer-${Math.random().toString(36).slice(2, 8)}` });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  const credit = await gateway.admin('POST', `/admin/accounts/${account.body.id}/credit`, { amount_usd: creditUsd });
  assert.equal(credit.status, 200, JSON.stringify(credit.body));
  const key = await gateway.admin('POST', `/admin/accounts/${account.body.id}/keys`, {});
  assert.equal(key.status, 201, JSON.stringify(key.body));
  return { accountId: account.body.id, keyId: key.body.id, key: key.body.key };
}
