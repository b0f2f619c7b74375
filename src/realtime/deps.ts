// What the realtime relay uses of the gateway, file by file. The composition root's Gateway
// satisfies every one of them as it is; tests may hand in less. Settings are named by their shape
// (the configuration's, config/env.ts): a service never imports the configuration loader.
import type { Logger } from 'pino';
import type { KeyStore } from '../auth/key-store.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { SharedHolds } from '../billing/shared-holds.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { KeyRateLimiter } from '../limits/rate-limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Router } from '../pipeline/router.ts';
import type { StateSync } from '../store/state-sync.ts';
import type { RealtimeSessions } from './sessions.ts';

/** recordRealtimeResponse: the usage row, one log line and the metrics per settled response */
export interface RealtimeRecordDeps {
  log: Logger;
  sync: Pick<StateSync, 'recordUsage' | 'touchKey'>;
  metrics: Pick<Metrics, 'requests' | 'tokens' | 'cost'>;
}

/** SessionBilling: the ledger (the same holds and settlements as every HTTP request), the shared holds and the model's prices */
export interface RealtimeBillingDeps extends RealtimeRecordDeps {
  /** the settlement log, when there is one, keeps each response's usage row with its charge */
  sync: Pick<StateSync, 'recordUsage' | 'touchKey' | 'settlementLog'>;
  ledger: Pick<Ledger, 'reserve' | 'release' | 'settle' | 'headroom' | 'holdIncurred' | 'balance'>;
  sharedHolds: Pick<SharedHolds, 'acquire' | 'settle' | 'release'> | undefined;
  catalogue: Pick<Catalogue, 'get'>;
}

/** admit: the key, its limits and a route for the model, then the first reservation */
export type HandshakeDeps = RealtimeBillingDeps & {
  config: { defaultMaxOutputTokens: number };
  keys: Pick<KeyStore, 'authenticate'>;
  router: Pick<Router, 'candidates'>;
  limiter: Pick<KeyRateLimiter, 'admit'>;
  realtime: Pick<RealtimeSessions, 'claimSlot'>;
};

/** connectUpstream: failover across the model's providers */
export interface UpstreamDeps {
  config: { upstream: { maxAttempts: number }; realtime: { maxFrameBytes: number } };
  log: Logger;
  metrics: Pick<Metrics, 'upstreamFailures'>;
}

/** RealtimeSession: its limits, the registry, and the key and account checks that may end it */
export interface SessionDeps {
  config: { realtime: { maxBufferedBytes: number; idleTimeoutMs: number; maxSessionMs: number } };
  log: Logger;
  keys: Pick<KeyStore, 'refusalFor'>;
  ledger: Pick<Ledger, 'isAccountDisabled'>;
  realtime: Pick<RealtimeSessions, 'events' | 'add' | 'delete'>;
}

/** The upgrade handler: everything above, and whether the gateway takes sessions at all (read on every upgrade) */
export type RealtimeDeps = HandshakeDeps & UpstreamDeps & SessionDeps & { readonly ready: boolean };
