import { reasonOf, StartupError, withoutPassword } from '../core/startup-error.ts';

/**
 * REDIS_URL set: one connection and a PING before start. Running on without it would quietly split
 * rate limits and holds between instances, so an unreachable Redis stops the start with one line.
 */
export async function checkRedis(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5_000 });
  let first: unknown;
  redis.on('error', (error: unknown) => (first ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const how = 'start Redis there, or correct REDIS_URL (leave it unset to run a single instance without Redis)';
    throw new StartupError(`modelgate cannot reach Redis at ${withoutPassword(url)} (${reasonOf(first ?? error)}): ${how}.`);
  } finally {
    redis.disconnect();
  }
}
