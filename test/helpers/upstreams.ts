// Extra upstreams for billing and routing suites: more simulators registered as providers, a TCP
// proxy that shows what the gateway does to its upstream sockets, a port nobody listens on, and a
// tap on the usage rows the pipeline records (to wait for a request's settlement without sleeping).
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Gateway } from '../../src/gateway.ts';
import type { NewUsageRow } from '../../src/store/schema.ts';
import { startOpenAISimulator, type OpenAISimulator, type OpenAISimulatorOptions } from '../../simulators/openai/server.ts';
import type { TestGateway } from './gateway.ts';

export interface TcpProxy {
  port: number;
  /** connections the gateway opened through the proxy */
  readonly accepted: number;
  /** connections the gateway (the proxy's client side) closed */
  readonly closedByClient: number;
  /** resolves at the next close of a gateway-side connection */
  nextClientClose(): Promise<void>;
  close(): Promise<void>;
}

/** Forwards every connection to 127.0.0.1:targetPort and counts what the client side does. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let closedByClient = 0;
  let waiters: Array<() => void> = [];
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('close', () => {
      sockets.delete(client);
      closedByClient++;
      upstream.destroy();
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert(address && typeof address === 'object');
  return {
    port: address.port,
    get accepted() {
      return accepted;
    },
    get closedByClient() {
      return closedByClient;
    },
    nextClientClose: () => new Promise<void>((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert(address && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

export interface SimProvider {
  id: string;
  name: string;
  sim: OpenAISimulator;
  /** present when the provider was registered through a TCP proxy */
  proxy: TcpProxy | undefined;
  close(): Promise<void>;
}

export interface SimProviderOptions {
  name: string;
  models: string[];
  priority?: number;
  weight?: number;
  modelMap?: Record<string, string>;
  settings?: Record<string, unknown>;
  simulator?: Partial<OpenAISimulatorOptions>;
  /** route the gateway's connections through a TCP proxy (to watch them close) */
  viaProxy?: boolean;
}

/** Starts one more OpenAI simulator and registers it as a provider of `tg`. */
export async function addSimProvider(tg: TestGateway, options: SimProviderOptions): Promise<SimProvider> {
  const apiKey = `sim-key-${options.name}`;
  const sim = await startOpenAISimulator({ apiKey, ...options.simulator });
  const proxy = options.viaProxy ? await startTcpProxy(sim.port) : undefined;
  const baseUrl = proxy ? `http://127.0.0.1:${proxy.port}/v1` : sim.baseUrl;
  const created = await tg.admin('POST', '/admin/providers', {
    name: options.name,
    type: 'openai',
    base_url: baseUrl,
    api_key: apiKey,
    models: options.models,
    ...(options.priority !== undefined && { priority: options.priority }),
    ...(options.weight !== undefined && { weight: options.weight }),
    ...(options.modelMap && { model_map: options.modelMap }),
    ...(options.settings && { settings: options.settings }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return {
    id: created.body.id,
    name: options.name,
    sim,
    proxy,
    async close() {
      await proxy?.close();
      await sim.close();
    },
  };
}

/** Registers a provider whose base URL points at a closed port (connections are refused). */
export async function addDeadProvider(tg: TestGateway, name: string, models: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const port = await closedPort();
  const created = await tg.admin('POST', '/admin/providers', {
    name,
    type: 'openai',
    base_url: `http://127.0.0.1:${port}/v1`,
    api_key: 'unused',
    models,
    ...extra,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

export interface UsageTap {
  /** every usage row the pipeline recorded since the tap was installed */
  readonly rows: NewUsageRow[];
  /** resolves with the first row (already recorded or future) matching `match` that was not handed out before */
  next(match?: (row: NewUsageRow) => boolean): Promise<NewUsageRow>;
}

/**
 * The pipeline records one usage row per request after settling it (in its `finally`), so a row
 * appearing means the request's hold is closed and its charge applied.
 */
export function tapUsage(gateway: Gateway): UsageTap {
  const rows: NewUsageRow[] = [];
  const taken = new Set<NewUsageRow>();
  let waiters: Array<{ match: (row: NewUsageRow) => boolean; resolve: (row: NewUsageRow) => void }> = [];
  const original = gateway.sync.recordUsage.bind(gateway.sync);
  gateway.sync.recordUsage = (row: NewUsageRow) => {
    original(row);
    rows.push(row);
    const waiter = waiters.find((w) => w.match(row));
    if (waiter) {
      waiters = waiters.filter((w) => w !== waiter);
      taken.add(row);
      waiter.resolve(row);
    }
  };
  return {
    rows,
    next(match = () => true) {
      const existing = rows.find((row) => !taken.has(row) && match(row));
      if (existing) {
        taken.add(existing);
        return Promise.resolve(existing);
      }
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** Usage rows of an account through the admin API (newest first). */
export async function usageRows(tg: TestGateway, accountId: string): Promise<any[]> {
  const res = await tg.admin('GET', `/admin/usage?account_id=${accountId}&limit=1000`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** USD as the admin API shows it → nano-dollars. */
export const usdToNanoExact = (usd: number): number => Math.round(usd * 1e9);

/** Counts charges in an account's journal. */
export async function chargeCount(tg: TestGateway, accountId: string): Promise<number> {
  const res = await tg.admin('GET', `/admin/accounts/${accountId}/ledger?limit=1000`);
  assert.equal(res.status, 200);
  return (res.body.data as Array<{ kind: string }>).filter((row) => row.kind === 'charge').length;
}
