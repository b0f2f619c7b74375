import type { Redis } from 'ioredis';
import { rateLimited } from '../core/errors.ts';
import { RateLimiterMemory, rateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from './limiter-classes.ts';

export interface LimitedKey {
  id: string;
  rpm: number | null;
  tpm: number | null;
}

type Kind = 'requests' | 'tokens';

/**
 * Per-key requests-per-minute and tokens-per-minute, on rate-limiter-flexible: in memory on
 * one instance, in Redis (with an in-memory insurance limiter if Redis fails) when several
 * instances share the load. Tokens are taken at admission from the request's estimate and the
 * unused part is given back when the request ends.
 */
export class KeyRateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly redis: Redis | undefined;

  constructor(redis?: Redis) {
    this.redis = redis;
  }

  /**
   * Admits the request or throws 429; returns the `x-ratelimit-*` headers to send — or, for a key
   * without limits, nothing and no promise (the caller's request path then takes no extra turn).
   */
  admit(key: LimitedKey, estimatedTokens: number): Promise<Record<string, string>> | undefined {
    if (key.rpm === null && key.tpm === null) return undefined;
    return this.admitLimited(key, estimatedTokens, true);
  }

  /**
   * The requests-per-minute part alone: HTTP admission takes it before any work is done on the
   * request (see src/http/admission.ts); `admitTokens` takes the rest once the prompt is counted.
   */
  admitRequest(key: LimitedKey): Promise<Record<string, string>> | undefined {
    if (key.rpm === null) return undefined;
    return this.admitLimited({ id: key.id, rpm: key.rpm, tpm: null }, 0, true);
  }

  /** The tokens-per-minute part of a request `admitRequest` already counted. */
  admitTokens(key: LimitedKey, estimatedTokens: number): Promise<Record<string, string>> | undefined {
    if (key.tpm === null) return undefined;
    return this.admitLimited(key, estimatedTokens, false);
  }

  private async admitLimited(key: LimitedKey, estimatedTokens: number, countRequest: boolean): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    if (countRequest && key.rpm !== null) await this.take('requests', key.id, key.rpm, 1, headers);
    if (key.tpm !== null) {
      try {
        if (estimatedTokens > key.tpm) {
          throw rateLimited(
            `Request too large: it may use up to ${estimatedTokens} tokens, above this key's limit of ${key.tpm} tokens per minute. Lower max_tokens or the prompt.`,
            60,
            headers,
          );
        }
        await this.take('tokens', key.id, key.tpm, Math.max(estimatedTokens, 1), headers);
      } catch (error) {
        // refused on tokens: the request it was counted as never happened
        if (key.rpm !== null) void this.limiter('requests', key.rpm).reward(key.id, 1).catch(() => undefined);
        throw error;
      }
    }
    return headers;
  }

  /** Gives back tokens that were reserved but not used. */
  refundTokens(key: LimitedKey, tokens: number): void {
    if (key.tpm === null || tokens <= 0) return;
    void this.limiter('tokens', key.tpm).reward(key.id, Math.round(tokens)).catch(() => undefined);
  }

  private async take(kind: Kind, keyId: string, limit: number, points: number, headers: Record<string, string>): Promise<void> {
    try {
      const res = await this.limiter(kind, limit).consume(keyId, points);
      writeHeaders(headers, kind, limit, res);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // the limiter counted the refused points too: a refused request takes nothing, so give them
      // back (else one refused large request would block even small ones for the rest of the minute)
      const restored = await this.limiter(kind, limit)
        .reward(keyId, points)
        .catch(() => undefined);
      writeHeaders(headers, kind, limit, restored ?? rejection);
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rateLimited(
        `Rate limit reached: this key allows ${limit} ${kind} per minute. Retry in ${retryAfter}s.`,
        retryAfter,
        headers,
      );
    }
  }

  private limiter(kind: Kind, limit: number): RateLimiterAbstract {
    const id = `${kind}:${limit}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { points: limit, duration: 60, keyPrefix: `mg:rl:${kind}:${limit}` };
      if (this.redis) {
        const RateLimiterRedis = rateLimiterRedis();
        limiter = new RateLimiterRedis({ ...options, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(options) });
      } else {
        limiter = new RateLimiterMemory(options);
      }
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

function writeHeaders(headers: Record<string, string>, kind: Kind, limit: number, res: RateLimiterRes): void {
  headers[`x-ratelimit-limit-${kind}`] = String(limit);
  headers[`x-ratelimit-remaining-${kind}`] = String(Math.max(0, res.remainingPoints));
  headers[`x-ratelimit-reset-${kind}`] = `${Math.max(0, Math.ceil(res.msBeforeNext / 1000))}s`;
}
