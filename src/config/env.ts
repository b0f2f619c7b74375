import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readYamlSettings, type YamlConfig } from './yaml-config.ts';
import type { TracingOptions } from '../observability/tracing.ts';
import { tracingFromEnv } from '../observability/tracing-env.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  configPath: string | undefined;
  demo: 'auto' | 'off';
  publicBaseUrl: string;
  logLevel: string;
  /** largest request body accepted on JSON endpoints */
  maxBodyBytes: number;
  /** output tokens reserved for a request that sets no max_tokens */
  defaultMaxOutputTokens: number;
  upstream: { connectTimeoutMs: number; firstByteTimeoutMs: number; idleTimeoutMs: number; maxAttempts: number; maxConnections: number; breakerCooldownMs: number };
  /** scheduled provider probes (src/health): intervalMs 0 = off; `failures` failed probes in a row take a provider out */
  health: { intervalMs: number; timeoutMs: number; failures: number };
  /** how often writes are flushed and changes from other instances pulled in */
  syncIntervalMs: number;
  /** /readyz answers 503 while the oldest write not yet in the database is older than this */
  flushLagReadyMs: number;
  shutdownGraceMs: number;
  media: MediaConfig;
  /** where charges are appended before the answer ends (undefined: none, an in-memory database) */
  settlementLog: { dir: string | undefined; fsync: boolean };
  jobs: JobsConfig;
  /** realtime WebSocket sessions (GET /v1/realtime) */
  realtime: RealtimeLimits;
  /** quick-start upstream keys by family env var (OPENAI_API_KEY…) */
  quickStartKeys: Record<string, string>;
  yaml: YamlConfig | undefined;
  /** console sign-in attempts allowed per client address and per email in a 15-minute window */
  consoleLogin: { perIp: number; perEmail: number; windowSeconds: number };
  /** key of the tool-call ids that carry vendor state (`mgx_…`); unset = one generated once and kept in the database */
  toolIdSecret: string | undefined;
  /** how long a stored response (`POST /v1/responses` with `store`) is kept before it is deleted */
  responsesRetentionDays: number;
  /** client connections (see ServerTimeouts) */
  server: ServerTimeouts;
  /** OpenTelemetry traces over OTLP (the standard OTEL_* variables); undefined: off */
  tracing: TracingOptions | undefined;
}

export interface ServerTimeouts {
  /** a client must have sent the request's headers within this long */
  headersTimeoutMs: number;
  /** … and the whole request, body included (not the response: streams run as long as they run) */
  requestTimeoutMs: number;
  /** a socket with no byte either way for this long is closed; above the upstream waits, so no answer in progress is cut */
  socketIdleTimeoutMs: number;
}

export interface MediaConfig {
  /** where stored images and videos live (local disk storage) */
  dir: string;
  /** where multipart uploads are spooled while a request runs */
  uploadDir: string;
  /** largest uploaded file (413 beyond) */
  maxUploadBytes: number;
  /** all the files and fields of one multipart request together (413 beyond) */
  maxUploadTotalBytes: number;
  /** lifetime of a stored object and of every link to it */
  linkTtlSeconds: number;
  /** link-signing secret; unset = one generated once and kept in the database */
  secret: string | undefined;
  /** upstream wait for response headers on media operations (image generation takes 5–15 s, more under load) */
  upstreamTimeoutMs: number;
}

export interface JobsConfig {
  /** how often the video worker polls upstream jobs; 0 = never on its own (tests call tick()) */
  pollIntervalMs: number;
  /** an unfinished job fails after this long and its hold is released */
  timeoutMs: number;
  /** how long an instance owns a job without renewing; a crashed instance's jobs move on after it */
  leaseMs: number;
}

export interface RealtimeLimits {
  /** open sessions one key may hold on this instance; 0 = no limit */
  maxSessionsPerKey: number;
  /** a session is closed (1008 session_expired) after this long */
  maxSessionMs: number;
  /** largest WebSocket message accepted from either side (1009 beyond) */
  maxFrameBytes: number;
  /** a session with no frame in either direction for this long is closed */
  idleTimeoutMs: number;
  /** ping interval towards both sockets; a socket that misses a pong by the next ping is dropped */
  pingIntervalMs: number;
  /** bytes queued towards one side before the other side is no longer read */
  maxBufferedBytes: number;
}

type Env = Record<string, string | undefined>;

/**
 * Reads configuration: the environment (and `.env` when present) wins over the YAML file's
 * non-secret settings, which win over the defaults.
 */
export function loadConfig(env: Env = process.env, quickStartVars: string[] = []): Config {
  if (env === process.env && existsSync('.env')) process.loadEnvFile('.env');
  const configPath = env.MODELGATE_CONFIG || undefined;
  const yaml = configPath ? readYamlSettings(configPath) : undefined;
  const settings = yaml?.settings ?? {};
  const pick = (name: string, yamlValue: string | number | undefined, fallback: string): string =>
    env[name] ?? (yamlValue === undefined ? fallback : String(yamlValue));

  const port = int('PORT', pick('PORT', settings.port, '3000'), 0, 65535);
  const host = pick('HOST', settings.host, '127.0.0.1');
  const demo = pick('MODELGATE_DEMO', settings.demo, 'auto');
  if (demo !== 'auto' && demo !== 'off') throw new Error(`MODELGATE_DEMO must be "auto" or "off" (got "${demo}")`);

  const quickStartKeys: Record<string, string> = {};
  for (const name of quickStartVars) if (env[name]) quickStartKeys[name] = env[name];

  const config: Omit<Config, 'server' | 'tracing'> = {
    port,
    host,
    databaseUrl: env.DATABASE_URL ?? 'sqlite:./data/modelgate.db',
    redisUrl: env.REDIS_URL || undefined,
    adminToken: env.MODELGATE_ADMIN_TOKEN || undefined,
    configPath,
    demo,
    publicBaseUrl: (pick('PUBLIC_BASE_URL', settings.public_base_url, `http://${hostForUrl(host)}:${port}`)).replace(/\/+$/, ''),
    logLevel: pick('LOG_LEVEL', settings.log_level, 'info'),
    maxBodyBytes: int('MODELGATE_MAX_BODY_BYTES', pick('MODELGATE_MAX_BODY_BYTES', settings.max_body_bytes, String(32 * 1024 * 1024)), 1024, 1 << 30),
    defaultMaxOutputTokens: int('MODELGATE_DEFAULT_MAX_OUTPUT_TOKENS', pick('MODELGATE_DEFAULT_MAX_OUTPUT_TOKENS', settings.default_max_output_tokens, '4096'), 1, 10_000_000),
    upstream: {
      connectTimeoutMs: int('MODELGATE_CONNECT_TIMEOUT_MS', pick('MODELGATE_CONNECT_TIMEOUT_MS', settings.connect_timeout_ms, '5000'), 1, 600_000),
      firstByteTimeoutMs: int('MODELGATE_FIRST_BYTE_TIMEOUT_MS', pick('MODELGATE_FIRST_BYTE_TIMEOUT_MS', settings.first_byte_timeout_ms, '120000'), 1, 3_600_000),
      idleTimeoutMs: int('MODELGATE_IDLE_TIMEOUT_MS', pick('MODELGATE_IDLE_TIMEOUT_MS', settings.idle_timeout_ms, '60000'), 1, 3_600_000),
      maxAttempts: int('MODELGATE_MAX_ATTEMPTS', pick('MODELGATE_MAX_ATTEMPTS', settings.max_attempts, '3'), 1, 10),
      maxConnections: int('MODELGATE_UPSTREAM_CONNECTIONS', pick('MODELGATE_UPSTREAM_CONNECTIONS', settings.upstream_connections, '256'), 1, 65_536),
      breakerCooldownMs: int('MODELGATE_BREAKER_COOLDOWN_MS', pick('MODELGATE_BREAKER_COOLDOWN_MS', settings.breaker_cooldown_ms, '30000'), 1, 3_600_000),
    },
    health: {
      intervalMs: int('MODELGATE_HEALTH_INTERVAL_MS', env.MODELGATE_HEALTH_INTERVAL_MS ?? '60000', 0, 24 * 3_600_000),
      timeoutMs: int('MODELGATE_HEALTH_TIMEOUT_MS', env.MODELGATE_HEALTH_TIMEOUT_MS ?? '10000', 1, 600_000),
      failures: int('MODELGATE_HEALTH_FAILURES', env.MODELGATE_HEALTH_FAILURES ?? '2', 1, 100),
    },
    syncIntervalMs: int('MODELGATE_SYNC_INTERVAL_MS', pick('MODELGATE_SYNC_INTERVAL_MS', settings.sync_interval_ms, '250'), 10, 60_000),
    flushLagReadyMs: int('MODELGATE_FLUSH_LAG_READY_MS', env.MODELGATE_FLUSH_LAG_READY_MS ?? '30000', 1, 24 * 3_600_000),
    shutdownGraceMs: int('MODELGATE_SHUTDOWN_GRACE_MS', pick('MODELGATE_SHUTDOWN_GRACE_MS', settings.shutdown_grace_ms, '30000'), 0, 3_600_000),
    settlementLog: {
      dir: settlementLogDir(env.MODELGATE_SETTLEMENT_LOG_DIR, env.DATABASE_URL),
      fsync: env.MODELGATE_SETTLEMENT_LOG_FSYNC === '1' || env.MODELGATE_SETTLEMENT_LOG_FSYNC === 'true',
    },
    media: {
      dir: pick('MODELGATE_MEDIA_DIR', settings.media_dir, defaultMediaDir(env.DATABASE_URL)),
      uploadDir: pick('MODELGATE_UPLOAD_DIR', settings.upload_dir, join(tmpdir(), 'modelgate-uploads')),
      maxUploadBytes: int('MODELGATE_MAX_UPLOAD_BYTES', pick('MODELGATE_MAX_UPLOAD_BYTES', settings.max_upload_bytes, String(25 * 1024 * 1024)), 1024, 1 << 30),
      maxUploadTotalBytes: int('MODELGATE_MAX_UPLOAD_TOTAL_BYTES', pick('MODELGATE_MAX_UPLOAD_TOTAL_BYTES', settings.max_upload_total_bytes, String(50 * 1024 * 1024)), 1024, 1 << 30),
      linkTtlSeconds: int('MODELGATE_MEDIA_LINK_TTL_S', pick('MODELGATE_MEDIA_LINK_TTL_S', settings.media_link_ttl_s, '3600'), 1, 7 * 24 * 3600),
      secret: env.MODELGATE_MEDIA_SECRET || undefined,
      upstreamTimeoutMs: int('MODELGATE_MEDIA_TIMEOUT_MS', pick('MODELGATE_MEDIA_TIMEOUT_MS', settings.media_timeout_ms, '300000'), 1, 3_600_000),
    },
    jobs: {
      pollIntervalMs: int('MODELGATE_JOB_POLL_MS', pick('MODELGATE_JOB_POLL_MS', settings.job_poll_ms, '5000'), 0, 3_600_000),
      timeoutMs: int('MODELGATE_JOB_TIMEOUT_MS', pick('MODELGATE_JOB_TIMEOUT_MS', settings.job_timeout_ms, String(2 * 3600 * 1000)), 1, 7 * 24 * 3600 * 1000),
      leaseMs: int('MODELGATE_JOB_LEASE_MS', pick('MODELGATE_JOB_LEASE_MS', settings.job_lease_ms, '60000'), 1, 3_600_000),
    },
    realtime: {
      maxSessionsPerKey: int('MODELGATE_REALTIME_MAX_SESSIONS_PER_KEY', pick('MODELGATE_REALTIME_MAX_SESSIONS_PER_KEY', settings.realtime_max_sessions_per_key, '20'), 0, 1_000_000),
      maxSessionMs: int('MODELGATE_REALTIME_MAX_SESSION_MS', pick('MODELGATE_REALTIME_MAX_SESSION_MS', settings.realtime_max_session_ms, '3600000'), 1, 24 * 3_600_000),
      maxFrameBytes: int('MODELGATE_REALTIME_MAX_FRAME_BYTES', pick('MODELGATE_REALTIME_MAX_FRAME_BYTES', settings.realtime_max_frame_bytes, String(16 * 1024 * 1024)), 1024, 1 << 30),
      idleTimeoutMs: int('MODELGATE_REALTIME_IDLE_TIMEOUT_MS', pick('MODELGATE_REALTIME_IDLE_TIMEOUT_MS', settings.realtime_idle_timeout_ms, '600000'), 1, 24 * 3_600_000),
      pingIntervalMs: int('MODELGATE_REALTIME_PING_INTERVAL_MS', pick('MODELGATE_REALTIME_PING_INTERVAL_MS', settings.realtime_ping_interval_ms, '30000'), 10, 3_600_000),
      maxBufferedBytes: int('MODELGATE_REALTIME_MAX_BUFFERED_BYTES', pick('MODELGATE_REALTIME_MAX_BUFFERED_BYTES', settings.realtime_max_buffered_bytes, String(1024 * 1024)), 1024, 1 << 30),
    },
    quickStartKeys,
    yaml,
    consoleLogin: {
      perIp: int('MODELGATE_LOGIN_MAX_PER_IP', env.MODELGATE_LOGIN_MAX_PER_IP ?? '30', 1, 1_000_000),
      perEmail: int('MODELGATE_LOGIN_MAX_PER_EMAIL', env.MODELGATE_LOGIN_MAX_PER_EMAIL ?? '10', 1, 1_000_000),
      windowSeconds: 15 * 60,
    },
    toolIdSecret: env.MODELGATE_TOOL_ID_SECRET || undefined,
    responsesRetentionDays: int('MODELGATE_RESPONSES_RETENTION_DAYS', env.MODELGATE_RESPONSES_RETENTION_DAYS ?? '30', 1, 3650),
  };
  return { ...config, server: serverTimeouts(env, Math.max(config.upstream.firstByteTimeoutMs, config.media.upstreamTimeoutMs)), tracing: tracingFromEnv(env) };
}

/** `longestUpstreamWaitMs`: a client socket stays silent that long while its answer is awaited */
function serverTimeouts(env: Env, longestUpstreamWaitMs: number): ServerTimeouts {
  const requestTimeoutMs = int('MODELGATE_REQUEST_TIMEOUT_MS', env.MODELGATE_REQUEST_TIMEOUT_MS ?? '300000', 1, 24 * 3_600_000);
  // Node refuses a headers timeout longer than the request timeout
  const headersTimeoutMs = int('MODELGATE_HEADERS_TIMEOUT_MS', env.MODELGATE_HEADERS_TIMEOUT_MS ?? String(Math.min(30_000, requestTimeoutMs)), 1, requestTimeoutMs);
  const idleDefault = Math.max(600_000, longestUpstreamWaitMs + 60_000);
  const socketIdleTimeoutMs = int('MODELGATE_SOCKET_IDLE_TIMEOUT_MS', env.MODELGATE_SOCKET_IDLE_TIMEOUT_MS ?? String(idleDefault), 0, 24 * 3_600_000);
  return { headersTimeoutMs, requestTimeoutMs, socketIdleTimeoutMs };
}

function int(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

/** Beside an embedded database file; `./data/media` otherwise. */
function defaultMediaDir(databaseUrl: string | undefined): string {
  const url = databaseUrl ?? 'sqlite:./data/modelgate.db';
  if (url.startsWith('sqlite:') && url !== 'sqlite::memory:') return join(dirname(url.slice('sqlite:'.length) || './data/modelgate.db'), 'media');
  return './data/media';
}

/** `settlements/` beside the SQLite file, else ./data/settlements; none for an in-memory database or "off" */
function settlementLogDir(configured: string | undefined, databaseUrl: string | undefined): string | undefined {
  if (configured === 'off') return undefined;
  if (configured) return configured;
  const url = databaseUrl ?? 'sqlite:./data/modelgate.db';
  if (url === 'sqlite::memory:') return undefined;
  if (url.startsWith('sqlite:')) return join(dirname(url.slice('sqlite:'.length) || './data/modelgate.db'), 'settlements');
  return './data/settlements';
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
