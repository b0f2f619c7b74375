import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { insufficientQuota } from '../core/errors.ts';

/**
 * Balance reservations shared by every instance through Redis (REDIS_URL). Each instance keeps
 * its own holds in memory (the Ledger); this adds the holds of the other instances, so that
 * concurrent requests of one account on several instances cannot together overspend.
 *
 * Per account, one sorted set of `<instance>|<hold id>|<amount>` members. An instance proves it
 * is alive with a heartbeat key; the admission script drops the holds of instances whose
 * heartbeat expired (a crashed instance's reservations vanish within HEARTBEAT_TTL), so no
 * reservation outlives its instance for long.
 */

const HEARTBEAT_MS = 2_000;
const HEARTBEAT_TTL_MS = 6_000;
/** a hold older than this is dropped even if its instance lives (a request never takes longer) */
const HOLD_TTL_MS = 60 * 60 * 1000;

const ADMIT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local amount = tonumber(ARGV[2])
local balance = tonumber(ARGV[3])
local member = ARGV[4]
-- the caller is alive by definition: renew its heartbeat before judging the others
redis.call('SET', 'mg:instance:' .. ARGV[5], '1', 'PX', ${HEARTBEAT_TTL_MS})
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local held = 0
local alive = {}
for _, m in ipairs(redis.call('ZRANGE', key, 0, -1)) do
  local instance, value = string.match(m, '^([^|]+)|[^|]+|(%d+)$')
  if alive[instance] == nil then alive[instance] = redis.call('EXISTS', 'mg:instance:' .. instance) == 1 end
  if alive[instance] then held = held + tonumber(value) else redis.call('ZREM', key, m) end
end
if balance - held < amount then return held end
redis.call('ZADD', key, now + ${HOLD_TTL_MS}, member)
redis.call('PEXPIRE', key, ${HOLD_TTL_MS})
return -1
`;

export interface SharedHold {
  accountId: string;
  member: string;
}

export class SharedHolds {
  private readonly redis: Redis;
  private readonly log: Logger;
  private readonly instance = randomUUID().slice(0, 13);
  private readonly timer: NodeJS.Timeout;

  constructor(redis: Redis, log: Logger) {
    this.redis = redis;
    this.log = log;
    redis.defineCommand('mgAdmitHold', { numberOfKeys: 1, lua: ADMIT });
    const beat = () => void redis.set(`mg:instance:${this.instance}`, '1', 'PX', HEARTBEAT_TTL_MS).catch(() => undefined);
    redis.on('ready', beat);
    this.timer = setInterval(beat, HEARTBEAT_MS);
    this.timer.unref();
  }

  /**
   * Registers `amount` against the account unless every instance's holds together leave less
   * than that of `balanceNano`. A Redis failure admits the request (the local ledger still
   * guards this instance) rather than taking the service down with the cache.
   */
  async acquire(accountId: string, amount: number, balanceNano: number): Promise<SharedHold | undefined> {
    const member = `${this.instance}|${randomUUID()}|${amount}`;
    let result: number;
    try {
      const redis = this.redis as Redis & { mgAdmitHold(key: string, ...args: Array<string | number>): Promise<number> };
      result = await redis.mgAdmitHold(holdsKey(accountId), Date.now(), amount, balanceNano, member, this.instance);
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, 'shared holds unavailable; admitting on the local ledger only');
      return undefined;
    }
    if (result >= 0) {
      throw insufficientQuota('Insufficient balance: requests in flight on other gateway instances already reserve it. Retry shortly or top up.');
    }
    return { accountId, member };
  }

  release(hold: SharedHold | undefined): void {
    if (!hold) return;
    void this.redis.zrem(holdsKey(hold.accountId), hold.member).catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.del(`mg:instance:${this.instance}`).catch(() => undefined);
  }
}

const holdsKey = (accountId: string) => `mg:holds:${accountId}`;
