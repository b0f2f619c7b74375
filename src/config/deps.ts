import type { Logger } from 'pino';
import type { AdminDeps } from '../admin/deps.ts';
import type { Config } from './env.ts';

/**
 * What the start-up steps take: they write providers, models, accounts and keys through the
 * back office services, and read their own settings. The gateway satisfies both as it is.
 */
export interface StartupDeps extends AdminDeps {
  config: Pick<Config, 'yaml' | 'quickStartKeys'>;
  log: Pick<Logger, 'info'>;
}

export interface DemoDeps extends AdminDeps {
  config: Pick<Config, 'demo'>;
}
