import type { Kysely } from 'kysely';
import type { Ledger } from '../billing/ledger.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Router } from '../pipeline/router.ts';
import type { AccountsRepository } from '../store/repositories/accounts.ts';
import type { ApiKeysRepository } from '../store/repositories/api-keys.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import type { ModelOverridesRepository } from '../store/repositories/model-overrides.ts';
import type { ProvidersRepository } from '../store/repositories/providers.ts';
import type { UsageRepository } from '../store/repositories/usage.ts';
import type { Database } from '../store/schema.ts';
import type { StateSync } from '../store/state-sync.ts';

/**
 * What the back office (the admin API and the console's operator pages) works with: the
 * repositories it writes, the sync loop that makes a write visible, the in-memory ledger, the
 * router's providers and the model catalogue. The gateway satisfies it as it is.
 */
export interface AdminDeps {
  repos: {
    providers: ProvidersRepository;
    accounts: AccountsRepository;
    apiKeys: ApiKeysRepository;
    modelOverrides: ModelOverridesRepository;
    ledger: LedgerRepository;
    usage: UsageRepository;
  };
  /** the database, for the reads that are pages and reports rather than records */
  store: { db: Kysely<Database> };
  sync: StateSync;
  ledger: Ledger;
  router: Router;
  catalogue: Catalogue;
}
