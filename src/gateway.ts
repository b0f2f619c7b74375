import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AdminDeps } from './admin/deps.ts';
import { KeyStore } from './auth/key-store.ts';
import { Ledger } from './billing/ledger.ts';
import { replaySettlements } from './billing/replay-settlements.ts';
import { SettlementLog } from './billing/settlement-log.ts';
import { SharedHolds } from './billing/shared-holds.ts';
import { Catalogue } from './catalogue/catalogue.ts';
import type { Config } from './config/env.ts';
import { newId } from './core/ids.ts';
import { HealthMonitor } from './health/health-monitor.ts';
import { VideoWorker } from './jobs/video-worker.ts';
import { KeyRateLimiter } from './limits/rate-limiter.ts';
import { MediaStore } from './media/media-store.ts';
import { LinkSigner } from './media/signing.ts';
import { LocalDiskStorage } from './media/storage.ts';
import { createMetrics } from './observability/metrics.ts';
import { createTracer } from './observability/tracing-start.ts';
import { DEFAULT_BREAKER } from './pipeline/circuit-breaker.ts';
import { Router } from './pipeline/router.ts';
import type { PipelineDeps } from './pipeline/types.ts';
import { UpstreamClient } from './pipeline/upstream-client.ts';
import { openStore, type Store } from './store/database.ts';
import { accountsRepository } from './store/repositories/accounts.ts';
import { apiKeysRepository } from './store/repositories/api-keys.ts';
import { ledgerRepository } from './store/repositories/ledger.ts';
import { mediaObjectsRepository } from './store/repositories/media-objects.ts';
import { modelOverridesRepository } from './store/repositories/model-overrides.ts';
import { providersRepository } from './store/repositories/providers.ts';
import { secretsRepository } from './store/repositories/secrets.ts';
import { usageRepository } from './store/repositories/usage.ts';
import { videoJobsRepository, type VideoJobsRepository } from './store/repositories/video-jobs.ts';
import { RealtimeSessions } from './realtime/sessions.ts';
import { createFlusher } from './store/flusher.ts';
import { StateSync } from './store/state-sync.ts';
import { ResponseKeeper } from './store/response-keeper.ts';
import { responsesRepository } from './store/repositories/responses.ts';
import { adapters, configureVendors } from './vendors/registry.ts';
import { RequestLog } from './observability/logger.ts';

/**
 * Everything the layers use, built once by createGateway. Each layer takes only its own narrow
 * dependencies (the pipeline's, the back office's, …); extending them here makes the compiler
 * check that this object serves every one. Members below are those no narrow type names, or
 * that the gateway holds in a wider form than a layer sees.
 */
export interface Gateway extends PipelineDeps, AdminDeps {
  config: Config;
  log: Logger;
  store: Store;
  /** the back office's repositories, and the video jobs' */
  repos: AdminDeps['repos'] & { videoJobs: VideoJobsRepository };
  sync: StateSync;
  /** the Responses dialect's stored answers (written behind, swept past the retention) */
  responses: ResponseKeeper;
  keys: KeyStore;
  redis: Redis | undefined;
  /** images and videos the gateway serves itself, under signed links */
  media: MediaStore;
  /** drives video jobs to their end (and settles them), off the request path */
  videoWorker: VideoWorker;
  /** open realtime WebSocket sessions (per-key limits, pings, shutdown) */
  realtime: RealtimeSessions;
  /** scheduled provider probes feeding the circuit breakers, and their history */
  health: HealthMonitor;
  /** false while starting and once shutdown began: /readyz answers 503 */
  ready: boolean;
}

/** Opens the store, loads every key, account, provider and price into memory, and starts the sync loop. */
export async function createGateway(config: Config, log: Logger): Promise<Gateway> {
  const store = await openStore(config.databaseUrl);
  const keys = new KeyStore();
  const catalogue = new Catalogue(Object.values(adapters), (id) => router.serves(id));
  const upstream = new UpstreamClient();
  const router = new Router({
    timeouts: {
      connectMs: config.upstream.connectTimeoutMs,
      firstByteMs: config.upstream.firstByteTimeoutMs,
      idleMs: config.upstream.idleTimeoutMs,
    },
    breaker: { ...DEFAULT_BREAKER, cooldownMs: config.upstream.breakerCooldownMs },
    maxConnections: config.upstream.maxConnections,
    onProviderGone: (id) => upstream.forget(id),
  });
  let sharedHolds: SharedHolds | undefined;
  const sync: StateSync = new StateSync(
    store.db,
    {
      provider: (record) => router.apply(record),
      account: (record) => {
        ledger.applyAccount(record);
        realtime.credentialsChanged();
      },
      apiKey: (record) => {
        keys.apply(record);
        ledger.applyKeySpend(record.id, record.spentNano);
        ledger.applyKeyBudget(record);
        realtime.credentialsChanged();
      },
      modelOverride: (record) => catalogue.applyOverride(record),
      flushed: (entries, written) => ledger.reconcile(entries, written),
      visible: (entries, seenSeq) => sharedHolds?.visible(entries, seenSeq),
    },
    log,
    config.syncIntervalMs,
    createFlusher(store),
  );
  const settlementLog = config.settlementLog.dir
    ? new SettlementLog(config.settlementLog.dir, config.databaseUrl, {
        fsync: config.settlementLog.fsync,
        onGroupError: (error) => log.error({ err: error }, 'settlement log: a write failed; the charges it held are queued for the database but not logged'),
      })
    : undefined;
  sync.settlementLog = settlementLog;
  const ledger = new Ledger(sync);
  // every instance signs links with the same key: from the environment, else one kept in the database
  const signingSecret = config.media.secret ?? (await secretsRepository(store.db).getOrCreate('media-link-signing', () => randomBytes(32).toString('base64url')));
  const media = new MediaStore(mediaObjectsRepository(store.db), new LocalDiskStorage(config.media.dir), new LinkSigner(signingSecret), {
    publicBaseUrl: config.publicBaseUrl,
    ttlSeconds: config.media.linkTtlSeconds,
  });
  // tool-call ids that carry vendor state are signed, so every instance can read the others' and no client can forge one
  configureVendors({ toolCallIdKey: config.toolIdSecret ?? (await secretsRepository(store.db).getOrCreate('tool-call-id-signing', () => randomBytes(32).toString('base64url'))) });
  const metrics = createMetrics({ openReservations: () => ledger.openReservations, pendingWrites: () => sync.pendingWrites, flush: () => sync.health() });
  const realtime = new RealtimeSessions(config.realtime, metrics.registry, config.syncIntervalMs);
  // the client (~45 modules) only when there is a Redis to talk to
  const redis = config.redisUrl ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error; rate limits fall back to this instance'));
  sharedHolds = redis ? new SharedHolds(redis, log, { seen: () => sync.seenSeq, ...(settlementLog && { instance: settlementLog.owner }) }) : undefined;
  const gateway: Gateway = {
    config,
    log,
    requestLog: new RequestLog(log),
    store,
    repos: {
      providers: providersRepository(store.db),
      accounts: accountsRepository(store.db),
      apiKeys: apiKeysRepository(store.db),
      modelOverrides: modelOverridesRepository(store.db),
      ledger: ledgerRepository(store.db),
      usage: usageRepository(store.db),
      videoJobs: videoJobsRepository(store.db),
    },
    sync,
    responses: new ResponseKeeper(responsesRepository(store.db), {
      retentionDays: config.responsesRetentionDays,
      onError: (err, what) => log.error({ err: err instanceof Error ? err.message : String(err) }, `${what} failed; retried at the next flush`),
    }),
    keys,
    ledger,
    router,
    catalogue,
    limiter: new KeyRateLimiter(redis),
    upstream,
    metrics,
    tracer: await createTracer(config.tracing, log),
    redis,
    sharedHolds,
    media,
    videoWorker: undefined as unknown as VideoWorker,
    realtime,
    health: new HealthMonitor({ router, upstream, metrics, redis, log }, config.health),
    ready: false,
  };
  gateway.videoWorker = new VideoWorker(gateway, {
    instanceId: newId('inst'),
    pollIntervalMs: config.jobs.pollIntervalMs,
    leaseMs: config.jobs.leaseMs,
    requestTimeoutMs: config.media.upstreamTimeoutMs,
  });
  await sync.start();
  gateway.responses.start();
  if (settlementLog) await replaySettlements(gateway, settlementLog);
  gateway.videoWorker.start();
  await gateway.health.start();
  return gateway;
}

/** Flushes every queued write, then closes pools and the database. Call after the server stopped taking requests. */
export async function closeGateway(gateway: Gateway): Promise<void> {
  gateway.ready = false;
  await gateway.videoWorker.stop();
  await gateway.health.stop();
  // realtime sessions bill their last responses before the final flush
  await gateway.realtime.closeAll();
  await gateway.sync.stop();
  // answers kept by the last requests are written before the database closes
  await gateway.responses.stop();
  await gateway.upstream.close();
  await gateway.sharedHolds?.close();
  gateway.redis?.disconnect();
  await gateway.store.close();
  // the last requests' spans go out before the process ends
  await gateway.tracer.shutdown();
}
