import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { Principal } from '../auth/key-store.ts';
import type { Hold, Ledger } from '../billing/ledger.ts';
import type { SharedHold, SharedHolds } from '../billing/shared-holds.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { OffLoopCounter } from '../core/contracts/token-counter.ts';
import type { OpenOutputCap } from '../core/contracts/open-output-cap.ts';
import type { DecodedResponse, OperationCodec, TargetInfo } from '../core/contracts/vendor-codec.ts';
import type { GatewayError } from '../core/errors.ts';
import type { PaidEstimate } from '../core/paid-features.ts';
import type { Meter, Pricing } from '../core/pricing.ts';
import type { Usage } from '../core/usage.ts';
import type { KeyRateLimiter } from '../limits/rate-limiter.ts';
import type { RequestLog } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestTrace, Tracer } from '../observability/tracing.ts';
import type { StateSync } from '../store/state-sync.ts';
import type { NewUsageRow } from '../store/schema.ts';
import type { Candidate, OperationName, Router } from './router.ts';
import type { UpstreamClient } from './upstream-client.ts';

/**
 * What the request lifecycle uses, and nothing more: the composition root's gateway object
 * satisfies it as it is (the pipeline never sees the whole gateway).
 */
export interface PipelineDeps {
  /** the pipeline reads one setting; declared here, as the pipeline sits below the config layer */
  config: { upstream: { maxAttempts: number } };
  log: Pick<Logger, 'warn'>;
  requestLog: RequestLog;
  /** usage rows and key touches are written behind; the settlement log decides whether a charge carries its row */
  sync: Pick<StateSync, 'recordUsage' | 'touchKey' | 'settlementLog' | 'backlog'>;
  ledger: Ledger;
  router: Router;
  catalogue: Catalogue;
  limiter: KeyRateLimiter;
  upstream: UpstreamClient;
  metrics: Metrics;
  /** cross-instance reservations, when REDIS_URL is set */
  sharedHolds: SharedHolds | undefined;
  /** OpenTelemetry spans, or the no-op tracer */
  tracer: Tracer;
}

export interface OperationRequest<Call, Result = never> {
  operation: OperationName;
  /** the public path, for logs and usage rows */
  endpoint: string;
  model: string;
  call: Call;
  stream: boolean;
  /**
   * Upper bounds used for the reservation and the tokens-per-minute limit (`units` as the meter
   * counts them). `inputTokens` may be computed lazily (a getter) when a cheap
   * `inputTokensUpperBound` is given: the exact count is then made only when it matters.
   */
  estimate: {
    inputTokens: number;
    outputTokens: number;
    units?: number;
    inputTokensUpperBound?: number;
    settle?: (counter: OffLoopCounter) => Promise<void> | undefined;
    /** counts a lazy `inputTokens` for a client that left (PromptEstimate.settleAway) */
    settleAway?: (counter: OffLoopCounter) => Promise<void> | undefined;
    paid?: PaidEstimate;
  };
  /** the client set no output cap and the model's maximum is known: the reservation chooses the cap */
  openOutputCap?: OpenOutputCap;
  /** what `usage.units` counts and how it is priced; default: tokens only */
  meter?: Meter;
  /** a longer wait for the upstream's response headers than the provider's (images, audio, video) */
  firstByteTimeoutMs?: number;
  /**
   * Turns a decoded answer into the client's (needs I/O or a dialect's shape: stored images,
   * native predictions, video jobs). Runs before anything is charged: when it throws, nothing is.
   */
  respond?: (decoded: DecodedResponse<Result>, info: { target: TargetInfo; hold: Hold; shared: SharedHold | undefined }) => Promise<Responded>;
  /** serves the operation through a codec composed from the family's `via` codec (chat, messages where a family lacks it) */
  bridge?: OperationBridge<Call>;
}

/**
 * A codec the pipeline composes from a family's codec for `via`: a chat request with the client
 * dialect's encoder (chat-codec.ts, used whatever the family), the messages format through chat
 * where a family lacks the native one (messages-bridge.ts).
 */
export interface OperationBridge<Call> {
  via: OperationName;
  codecFor(viaCodec: OperationCodec<never>): OperationCodec<Call>;
}

export interface Responded {
  body: string | Uint8Array;
  contentType: string;
  status?: number;
  /** a job took the reservation over and will settle or release it itself */
  holdTaken?: boolean;
}

export interface RequestContext {
  requestId: string;
  principal: Principal;
  /** headers every answer carries (x-request-id) */
  responseHeaders: Record<string, string>;
  startedAt: number;
  /** HTTP admission already counted the request against the key's requests per minute (src/http/admission.ts) */
  requestCounted?: boolean;
}

export interface RequestOutcome {
  status: number;
  /** what is billed; null = nothing */
  usage: Usage | null;
  /** usage was counted locally because the vendor never reported it */
  estimated: boolean;
  providerId: string | null;
  error: string | null;
  costNano: number;
  /** the usage row logged with the charge (settleCall): recordRequest queues the same row */
  chargedRow?: NewUsageRow;
}

/** What one call holds until it is settled. */
export interface CallHolds {
  hold: Hold | undefined;
  /** a job took the reservation over and settles or releases it itself (shared hold included) */
  holdTaken: boolean;
  /** the call's hold across instances (REDIS_URL) */
  shared: SharedHold | undefined;
  pricing: Pricing;
  /** the request's spans (settlement among them); a shared no-op while tracing is off */
  trace: RequestTrace;
}

/**
 * done: the answer went to the client; retry: this provider failed, try the next one; unable:
 * this provider's family cannot honour the request (nothing was sent), another family may.
 */
export type AttemptResult = { kind: 'done' } | { kind: 'retry'; error: GatewayError } | { kind: 'unable'; error: GatewayError };

/** `complete`: the upstream has sent its whole body; what is left to read is here already */
export type UpstreamBodyStream = AsyncIterable<Uint8Array> & { destroy(): void; readonly complete?: boolean };

/** Everything one attempt at one provider works with. */
export interface AttemptScope<Call, Result> {
  deps: PipelineDeps;
  ctx: RequestContext;
  op: OperationRequest<Call, Result>;
  provider: Candidate['provider'];
  providerLabel: string;
  reply: FastifyReply;
  outcome: RequestOutcome;
  /** the call's reservations: settled (settleCall) before the answer's last byte */
  holds: CallHolds;
  clientGone: AbortSignal;
  /** the provider's circuit breaker, for this attempt (tells its result from stragglers') */
  health: { report(ok: boolean): void; cancelProbe(): void };
}
