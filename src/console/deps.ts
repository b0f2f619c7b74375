import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AdminDeps } from '../admin/deps.ts';
import type { Config } from '../config/env.ts';
import type { HealthMonitor } from '../health/health-monitor.ts';
import type { UpstreamClient } from '../pipeline/upstream-client.ts';

/**
 * What the web console works with: the back office's dependencies (its operator pages call the
 * admin services), plus the configuration, the log, Redis for the sign-in limiter, the health
 * probes' history and the upstream client its "test provider" button sends through. The
 * gateway satisfies it as it is.
 */
export interface ConsoleDeps extends AdminDeps {
  config: Config;
  log: Logger;
  redis: Redis | undefined;
  health: Pick<HealthMonitor, 'history'>;
  upstream: UpstreamClient;
}
