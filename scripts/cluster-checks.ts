// What a cluster needs before it starts any instance: PostgreSQL and Redis, both reachable. The
// cluster starts neither; when one is down it says which, and the command that starts it.
import { Redis } from 'ioredis';
import pg from 'pg';

const TIMEOUT_MS = 3000;

/** One line naming what is wrong and how to fix it, or null when both answer. */
export async function clusterPrerequisites(databaseUrl: string | undefined, redisUrl: string | undefined): Promise<string | null> {
  if (!databaseUrl || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return `DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/db) for a cluster: instances share it (got ${databaseUrl ? `"${databaseUrl.split(':')[0]}:…"` : 'nothing'})`;
  }
  if (!redisUrl || !/^rediss?:\/\//.test(redisUrl)) {
    return `REDIS_URL must be a Redis URL (redis://host:6379) for a cluster: instances share holds, rate limits and caches through it (got ${redisUrl ? `"${redisUrl.split(':')[0]}:…"` : 'nothing'})`;
  }
  const pgDown = await postgresError(databaseUrl);
  if (pgDown) {
    const at = new URL(databaseUrl);
    return `PostgreSQL at ${at.hostname}:${at.port || 5432} is not reachable (${pgDown}); start it: \`sudo systemctl start postgresql\` (without systemd: \`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start\`)`;
  }
  const redisDown = await redisError(redisUrl);
  if (redisDown) {
    const at = new URL(redisUrl);
    return `Redis at ${at.hostname}:${at.port || 6379} is not reachable (${redisDown}); start it: \`sudo systemctl start redis-server\` (without systemd: \`redis-server --daemonize yes --port ${at.port || 6379}\`)`;
  }
  return null;
}

async function postgresError(databaseUrl: string): Promise<string | null> {
  const url = new URL(databaseUrl);
  url.search = ''; // ?schema= is the gateway's own parameter, not the driver's
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return describe(err);
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisError(redisUrl: string): Promise<string | null> {
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let first: unknown; // the socket's error (ECONNREFUSED…), not the "Connection is closed" that follows it
  redis.on('error', (err) => (first ??= err));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return describe(first ?? err);
  } finally {
    redis.disconnect();
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; errors?: { code?: string }[] };
  return e.code ?? e.errors?.[0]?.code ?? e.message ?? String(err);
}
