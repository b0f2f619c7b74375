// rate-limiter-flexible's index requires every store it supports (36 modules: Mongo, MySQL, etcd,
// DynamoDB, Prisma…); the gateway uses three classes, required from their own files (the package
// has no "exports" map, so its lib/ files are reachable): 5 modules, and the Redis store's only
// when Redis is configured. The types are the package's own.
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';

const require = createRequire(import.meta.url);

export type { RateLimiterAbstract } from 'rate-limiter-flexible';
export const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
export const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
export type RateLimiterRes = Flexible.RateLimiterRes;

/** The Redis store's class, loaded on first use (a gateway with REDIS_URL). */
export function rateLimiterRedis(): typeof Flexible.RateLimiterRedis {
  return require('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof Flexible.RateLimiterRedis;
}
