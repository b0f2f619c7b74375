import { createAccount, creditAccount } from '../admin/accounts.ts';
import { createKey } from '../admin/keys.ts';
import { createProvider, listProviders, updateProvider } from '../admin/providers.ts';
import { newRequestId } from '../core/ids.ts';
import { adapters } from '../vendors/registry.ts';
import type { DemoDeps } from './deps.ts';
import type { SimulatorHandle, SimulatorStarters } from '../core/contracts/simulator.ts';

export interface DemoMode {
  key: string;
  accountId: string;
  simulators: SimulatorHandle[];
}

const DEMO_ACCOUNT = 'demo';
const DEMO_CREDIT_USD = 10;

/**
 * MODELGATE_DEMO=auto with no real provider: the built-in vendor simulators run on loopback
 * and are registered as providers, and a demo account gets $10 and a fresh key (printed once;
 * earlier demo keys stay valid until revoked). Real providers added later switch it off.
 * The simulators are not product code: the composition root hands in `loadSimulators`, called only
 * when demo mode runs; each is registered with its family's known models.
 */
export async function startDemoIfWanted(gateway: DemoDeps, loadSimulators: () => Promise<SimulatorStarters>): Promise<DemoMode | undefined> {
  if (gateway.config.demo === 'off') return undefined;
  const providers = await listProviders(gateway);
  if (providers.some((p) => !p.settings.demo)) return undefined;

  const starters = await loadSimulators();
  const simulators: SimulatorHandle[] = [];
  for (const adapter of Object.values(adapters)) {
    const start = starters[adapter.manifest.family];
    if (!start) continue;
    const sim = await start();
    simulators.push(sim);
    const name = `demo-${adapter.manifest.family}`;
    const existing = providers.find((p) => p.name === name);
    const body = { base_url: sim.baseUrl, api_key: sim.apiKey, models: adapter.manifest.models.map((m) => m.id) };
    if (existing) await updateProvider(gateway, existing.id, body);
    else await createProvider(gateway, { name, type: adapter.manifest.family, ...body }, { demo: true });
  }

  const accounts = await gateway.repos.accounts.list({ limit: 1, search: DEMO_ACCOUNT });
  let account = accounts.find((a) => a.name === DEMO_ACCOUNT);
  if (!account) {
    account = await createAccount(gateway, { name: DEMO_ACCOUNT, email: null });
    await creditAccount(gateway, account.id, { amount_usd: DEMO_CREDIT_USD, note: 'demo credit' }, 'demo-initial-credit', newRequestId());
  }
  const { secret } = await createKey(gateway, account.id, { name: `demo ${new Date().toISOString()}` });
  return { key: secret, accountId: account.id, simulators };
}
