import type { Redis } from 'ioredis';
import { GatewayError } from '../../core/errors.ts';
import { RateLimiterMemory, rateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from '../../limits/limiter-classes.ts';

export interface LoginLimits {
  perIp: number;
  perEmail: number;
  windowSeconds: number;
}

function limiter(prefix: string, points: number, duration: number, redis: Redis | undefined): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix: prefix, points, duration });
  if (!redis) return memory;
  const RateLimiterRedis = rateLimiterRedis();
  return new RateLimiterRedis({ storeClient: redis, keyPrefix: `mg:${prefix}`, points, duration, insuranceLimiter: memory });
}

/**
 * Sign-in, sign-up and operator-token attempts, per client address and per email (whether or
 * not an account has that email, so the limit tells nothing about which emails exist). Shared
 * through Redis when the instances share one.
 */
export class LoginLimiter {
  private readonly byIp: RateLimiterAbstract;
  private readonly byEmail: RateLimiterAbstract;

  constructor(limits: LoginLimits, redis?: Redis) {
    this.byIp = limiter('console-ip', limits.perIp, limits.windowSeconds, redis);
    this.byEmail = limiter('console-email', limits.perEmail, limits.windowSeconds, redis);
  }

  async attempt(ip: string, email?: string): Promise<void> {
    try {
      await this.byIp.consume(ip);
      if (email) await this.byEmail.consume(email.trim().toLowerCase());
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new GatewayError({
        status: 429,
        type: 'rate_limit_exceeded',
        message: `Too many sign-in attempts. Try again in ${Math.ceil(seconds / 60)} minute(s).`,
        code: 'too_many_attempts',
        retryAfter: seconds,
      });
    }
  }

  /** A successful sign-in clears the email's count (not the address's). */
  async succeeded(email: string): Promise<void> {
    await this.byEmail.delete(email.trim().toLowerCase()).catch(() => undefined);
  }
}
