import { createAccount, creditAccount } from '../admin/accounts.ts';
import { createKey } from '../admin/keys.ts';
import { createProvider, listProviders, updateProvider } from '../admin/providers.ts';
import { newRequestId } from '../core/ids.ts';
import type { Gateway } from '../gateway.ts';
import { adapters } from '../vendors/registry.ts';
import type { SimulatorHandle } from '../core/contracts/provider-adapter.ts';

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
 */
export async function startDemoIfWanted(gateway: Gateway): Promise<DemoMode | undefined> {
  if (gateway.config.demo === 'off') return undefined;
  const providers = await listProviders(gateway);
  if (providers.some((p) => !p.settings.demo)) return undefined;

  const simulators: SimulatorHandle[] = [];
  for (const adapter of Object.values(adapters)) {
    if (!adapter.startSimulator) continue;
    const sim = await adapter.startSimulator();
    simulators.push(sim);
    const name = `demo-${adapter.manifest.family}`;
    const existing = providers.find((p) => p.name === name);
    const body = { base_url: sim.baseUrl, api_key: sim.apiKey, models: sim.models };
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
