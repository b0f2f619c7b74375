// What the realtime relay uses of the gateway, file by file. The composition root's Gateway
// satisfies every one of them as it is; tests may hand in less.
import type { Logger } from 'pino';
import type { KeyStore } from '../auth/key-store.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { SharedHolds } from '../billing/shared-holds.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Config, RealtimeLimits } from '../config/env.ts';
import type { KeyRateLimiter } from '../limits/rate-limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Router } from '../pipeline/router.ts';
import type { StateSync } from '../store/state-sync.ts';
import type { RealtimeSessions } from './sessions.ts';

/** recordRealtimeResponse: one usage row, one log line and the metrics per settled response */
export interface RealtimeRecordDeps {
  log: Logger;
  sync: Pick<StateSync, 'recordUsage' | 'touchKey'>;
  metrics: Pick<Metrics, 'requests' | 'tokens' | 'cost'>;
}

/** SessionBilling: the ledger (the same holds and settlements as every HTTP request), the shared holds and the model's prices */
export interface RealtimeBillingDeps extends RealtimeRecordDeps {
  ledger: Pick<Ledger, 'reserve' | 'release' | 'settle' | 'headroom' | 'holdIncurred' | 'balance'>;
  sharedHolds: Pick<SharedHolds, 'acquire' | 'settle' | 'release'> | undefined;
  catalogue: Pick<Catalogue, 'get'>;
}

/** admit: the key, its limits and a route for the model, then the first reservation */
export type HandshakeDeps = RealtimeBillingDeps & {
  config: Pick<Config, 'defaultMaxOutputTokens'>;
  keys: Pick<KeyStore, 'authenticate'>;
  router: Pick<Router, 'candidates'>;
  limiter: Pick<KeyRateLimiter, 'admit'>;
  realtime: Pick<RealtimeSessions, 'claimSlot'>;
};

/** connectUpstream: failover across the model's providers */
export interface UpstreamDeps {
  config: { upstream: Pick<Config['upstream'], 'maxAttempts'>; realtime: Pick<RealtimeLimits, 'maxFrameBytes'> };
  log: Logger;
  metrics: Pick<Metrics, 'upstreamFailures'>;
}

/** RealtimeSession: its limits, the registry, and the key and account checks that may end it */
export interface SessionDeps {
  config: { realtime: Pick<RealtimeLimits, 'maxBufferedBytes' | 'idleTimeoutMs' | 'maxSessionMs'> };
  log: Logger;
  keys: Pick<KeyStore, 'refusalFor'>;
  ledger: Pick<Ledger, 'isAccountDisabled'>;
  realtime: Pick<RealtimeSessions, 'events' | 'add' | 'delete'>;
}

/** The upgrade handler: everything above, and whether the gateway takes sessions at all (read on every upgrade) */
export type RealtimeDeps = HandshakeDeps & UpstreamDeps & SessionDeps & { readonly ready: boolean };
