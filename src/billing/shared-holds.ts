import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { insufficientQuota } from '../core/errors.ts';
import type { LedgerEntry } from '../store/repositories/ledger.ts';

/**
 * One balance for every instance (REDIS_URL). Each instance keeps its balances and holds in
 * memory (the Ledger) and learns the others' charges from the database, one flush and one poll
 * later (up to two sync intervals). What Redis adds is everything in between, so that an
 * admission on any instance counts every reservation and every charge made anywhere:
 *
 * - holds, `mg:holds:<account>`: a sorted set of `<instance>|<hold id>|<amount>` (score: when the
 *   hold lapses). A hold lives as long as its work: a request, a stream, a realtime response, a
 *   video job (which takes it over, `takeOver`, and settles it when the job ends, on whichever
 *   instance then holds the job's lease).
 * - pending charges, `mg:pending:<account>`: per instance, the sum of the charges it settled whose
 *   journal entries are not yet committed and polled back. `settle` turns a hold into such a
 *   charge in one atomic step (the hold leaves, the sum grows).
 * - committed charges, `mg:marked:<account>`: once a flush committed an instance's charges and
 *   its poll came back at change counter S, `visible` moves their sum out of the pending sum into
 *   a batch `<instance>|<S>|<sum>` scored S: an instance whose store has polled up to S has them in
 *   its balance; any other still counts them. Batches every live instance has seen are trimmed.
 *
 * Admission (`acquire`, one round trip) passes the caller's balance and seen counter; the script
 * refuses when that balance minus every live instance's holds minus the other instances' pending
 * sums and committed batches beyond the caller's view cannot cover the amount (the caller's own
 * charges are in its balance already). Its cost grows with the number of instances and of flush
 * cycles not yet seen by all, not with the number of requests.
 *
 * Why pending charges rather than a running balance kept in Redis: the database stays the one
 * source of the balance (credits, corrections and the journal are written there and nowhere
 * else), and a Redis restart or flush loses only what is in flight for a few hundred ms rather
 * than the balance itself. An instance proves it is alive with a heartbeat key: holds of an
 * instance whose heartbeat lapsed are dropped (its work died with it); its pending charges stay
 * (the money was spent) until the process that replays its settlement log marks them visible, or
 * CHARGE_TTL passes after its last charge; a video job's hold stays until the job's deadline,
 * since the job lives on in the database and another instance takes it over (`takeOver`
 * replaces the dead instance's). Redis failures admit on the local ledger alone (fail open) and
 * are logged.
 *
 * For realtime and other long work: `acquire` a hold, `extend` it to a larger amount (checked
 * like an admission, one round trip), then `settle` it into the response's charge or `release`
 * it: each hold is closed exactly once, whichever is called first.
 */

const HEARTBEAT_MS = 2_000;
const HEARTBEAT_TTL_MS = 6_000;
/** a hold older than this is dropped even if its instance lives (a request never takes longer) */
const HOLD_TTL_MS = 60 * 60 * 1000;
/** pending charges nobody marked visible (their process died and its log was never replayed) stop counting this long after the instance's last charge */
const CHARGE_TTL_MS = 60 * 60 * 1000;

const LIVE = `
local alive = {}
local function live(instance)
  if alive[instance] == nil then alive[instance] = redis.call('EXISTS', 'mg:instance:' .. instance) == 1 end
  return alive[instance]
end
`;

const ADMIT = `${LIVE}
local holds, pendingKey, marked = KEYS[1], KEYS[2], KEYS[3]
local now = tonumber(ARGV[1])
local amount = tonumber(ARGV[2])
local balance = tonumber(ARGV[3])
local member, me, seen, replace = ARGV[4], ARGV[5], ARGV[6], ARGV[7]
-- the caller is alive by definition: renew its heartbeat before judging the others
redis.call('SET', 'mg:instance:' .. me, '1', 'PX', ${HEARTBEAT_TTL_MS})
redis.call('HSET', 'mg:seen', me, seen)
redis.call('ZREMRANGEBYSCORE', holds, '-inf', now)
local held = 0
for _, m in ipairs(redis.call('ZRANGE', holds, 0, -1)) do
  if m ~= replace then
    local instance, value = string.match(m, '^([^|]+)|.+|(%d+)$')
    -- a job's hold outlives its instance (until its deadline): another instance takes the job over
    if instance and (live(instance) or string.find(m, '|job:', 1, true)) then held = held + tonumber(value) else redis.call('ZREM', holds, m) end
  end
end
-- charges made on other instances that the caller's balance does not include yet
local pending = 0
local fields = redis.call('HGETALL', pendingKey)
local sums, times = {}, {}
for i = 1, #fields, 2 do
  local f = fields[i]
  if string.sub(f, 1, 2) == 't|' then times[string.sub(f, 3)] = tonumber(fields[i + 1]) else sums[f] = tonumber(fields[i + 1]) end
end
for instance, sum in pairs(sums) do
  if (times[instance] or 0) + ${CHARGE_TTL_MS} < now then redis.call('HDEL', pendingKey, instance, 't|' .. instance)
  elseif instance ~= me and sum > 0 then pending = pending + sum end
end
for _, m in ipairs(redis.call('ZRANGEBYSCORE', marked, '(' .. seen, '+inf')) do
  local instance, sum = string.match(m, '^([^|]+)|%d+|(%d+)|')
  if instance and instance ~= me then pending = pending + tonumber(sum) end
end
if balance - held - pending < amount then return held + pending end
if replace ~= '' then redis.call('ZREM', holds, replace) end
redis.call('ZADD', holds, now + ${HOLD_TTL_MS}, member)
redis.call('PEXPIRE', holds, ${HOLD_TTL_MS})
return -1
`;

/** hold → pending charge, atomically (no moment where neither counts) */
const SETTLE = `
if ARGV[1] ~= '' then redis.call('ZREM', KEYS[1], ARGV[1]) end
redis.call('HINCRBY', KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2], 't|' .. ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ${CHARGE_TTL_MS})
`;

/** a job's hold registered by the instance now working on it, in place of any earlier one */
const TAKE_OVER = `
local tag = '|' .. ARGV[3] .. '|'
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if m == ARGV[4] or string.find(m, tag, 1, true) then redis.call('ZREM', KEYS[1], m) end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) - tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) - tonumber(ARGV[5])) end
`;

/**
 * An instance's charges committed and polled back up to ARGV[1]: ARGV[3] of its pending sum
 * ('all': the whole of it) becomes a batch scored ARGV[1]; then batches every live instance has
 * seen go. Never moves more than is pending: a charge Redis never registered is not taken twice.
 */
const VISIBLE = `${LIVE}
local pendingKey, marked = KEYS[1], KEYS[2]
local seq, instance = ARGV[1], ARGV[2]
local have = tonumber(redis.call('HGET', pendingKey, instance) or '0')
local move = have
if ARGV[3] ~= 'all' then move = math.min(have, tonumber(ARGV[3])) end
if move > 0 then
  redis.call('ZADD', marked, seq, instance .. '|' .. seq .. '|' .. move .. '|' .. ARGV[4])
  redis.call('PEXPIRE', marked, ${CHARGE_TTL_MS})
end
if have - move <= 0 then redis.call('HDEL', pendingKey, instance, 't|' .. instance)
else redis.call('HINCRBY', pendingKey, instance, -move) end
local least = nil
local seen = redis.call('HGETALL', 'mg:seen')
for i = 1, #seen, 2 do
  if live(seen[i]) then
    local value = tonumber(seen[i + 1])
    if least == nil or value < least then least = value end
  else
    redis.call('HDEL', 'mg:seen', seen[i])
  end
end
if least ~= nil then redis.call('ZREMRANGEBYSCORE', marked, '-inf', least) end
`;

/** A hold registered in Redis; closed (settled or released) exactly once. */
export interface SharedHold {
  accountId: string;
  member: string;
  amount: number;
  open: boolean;
  /** the same amount held against periodic budgets, each counted like an account of its own */
  budgets?: Array<{ subject: string; member: string }>;
}

/**
 * A key's or an account's periodic budget, counted across instances exactly like a balance: under
 * its own name per period (a new period is a new name, starting at zero).
 */
export interface SharedBudget {
  /** `budget:<key|account>:<id>:<period>:<start>` */
  subject: string;
  /** the budget minus its spend this period as this instance sees it (what `balanceNano` is to an account) */
  leftNano: number;
  /** the answer when other instances' holds and charges use what is left */
  refuse(): Error;
}

type Scripted = Redis & {
  mgAdmitHold(holds: string, pending: string, marked: string, ...args: Array<string | number>): Promise<number>;
  mgSettleHold(holds: string, pending: string, hold: string, instance: string, cost: number, at: number): Promise<unknown>;
  mgTakeOverHold(holds: string, member: string, expiresAt: number, tag: string, replace: string, now: number): Promise<unknown>;
};

export interface SharedHoldsOptions {
  /** this instance's id (its settlement log owner, so that a replay can mark its charges); default random */
  instance?: string;
  /** the change counter up to which this instance's balances include every committed change */
  seen: () => number;
}

export class SharedHolds {
  private readonly redis: Scripted;
  private readonly log: Logger;
  readonly instance: string;
  private readonly seen: () => number;
  private readonly timer: NodeJS.Timeout;
  /** charges registered in Redis and not yet marked visible: entry key → account and cost */
  private readonly registered = new Map<string, { accountId: string; cost: number; budgets?: string[] }>();

  constructor(redis: Redis, log: Logger, options: SharedHoldsOptions = { seen: () => 0 }) {
    this.redis = redis as Scripted;
    this.log = log;
    this.instance = options.instance ?? randomUUID().slice(0, 13);
    this.seen = options.seen;
    redis.defineCommand('mgAdmitHold', { numberOfKeys: 3, lua: ADMIT });
    redis.defineCommand('mgSettleHold', { numberOfKeys: 2, lua: SETTLE });
    redis.defineCommand('mgTakeOverHold', { numberOfKeys: 1, lua: TAKE_OVER });
    redis.defineCommand('mgChargesVisible', { numberOfKeys: 2, lua: VISIBLE });
    const beat = () =>
      void redis
        .multi()
        .set(`mg:instance:${this.instance}`, '1', 'PX', HEARTBEAT_TTL_MS)
        .hset('mg:seen', this.instance, this.seen())
        .exec()
        .catch(() => undefined);
    redis.on('ready', beat);
    this.timer = setInterval(beat, HEARTBEAT_MS);
    this.timer.unref();
  }

  /**
   * Registers `amount` against the account unless every instance's holds and the charges not yet
   * in `balanceNano` together leave less than that. A Redis failure admits the request (the local
   * ledger still guards this instance) rather than taking the service down with the cache.
   */
  async acquire(accountId: string, amount: number, balanceNano: number, budgets: readonly SharedBudget[] = []): Promise<SharedHold | undefined> {
    const hold: SharedHold = { accountId, member: `${this.instance}|${randomUUID()}|${amount}`, amount, open: true };
    if (!(await this.admit(hold, balanceNano, ''))) return undefined;
    // then each budget, like the balance; a refusal frees what was taken
    for (const budget of budgets) {
      const member = `${this.instance}|${randomUUID()}|${amount}`;
      const outcome = await this.tryAdmit(budget.subject, member, amount, budget.leftNano, '');
      if (outcome === 'refused') {
        this.release(hold);
        throw budget.refuse();
      }
      if (outcome === 'admitted') (hold.budgets ??= []).push({ subject: budget.subject, member });
    }
    return hold;
  }

  /**
   * Grows an open hold to `amount`, checked like an admission (the hold's old amount no longer
   * counts against it); throws 402 when refused, leaving the hold as it was.
   */
  async extend(hold: SharedHold | undefined, amount: number, balanceNano: number): Promise<void> {
    if (!hold?.open || amount <= hold.amount) return;
    const grown = `${this.instance}|${randomUUID()}|${amount}`;
    const replaced = hold.member;
    const next: SharedHold = { ...hold, member: grown, amount };
    if (await this.admit(next, balanceNano, replaced)) {
      hold.member = grown;
      hold.amount = amount;
    }
  }

  /**
   * The hold becomes the charge `entryKey` of `costNano` (in one step: at no moment does neither
   * count), pending until `visible`. A charge without a hold (Redis was down at admission, or work
   * the gateway could not refuse) is registered all the same. Not awaited: sent before the answer ends.
   */
  settle(hold: SharedHold | undefined, accountId: string, entryKey: string, costNano: number): void {
    if (hold && !hold.open) return;
    if (hold) hold.open = false;
    if (costNano <= 0) {
      if (hold) this.remove(hold);
      return;
    }
    const budgets = hold?.budgets?.map((b) => b.subject);
    const charge = { accountId, cost: costNano, ...(budgets && { budgets }) };
    this.registered.set(entryKey, charge);
    this.redis.mgSettleHold(holdsKey(accountId), pendingKey(accountId), hold?.member ?? '', this.instance, costNano, Date.now()).catch((error: unknown) => {
      // never registered: never taken out of the pending sum either
      this.registered.delete(entryKey);
      this.log.warn({ err: (error as Error).message, entryKey }, 'shared holds: a settled charge could not be registered');
    });
    for (const budget of hold?.budgets ?? []) {
      this.redis.mgSettleHold(holdsKey(budget.subject), pendingKey(budget.subject), budget.member, this.instance, costNano, Date.now()).catch((error: unknown) => {
        charge.budgets = charge.budgets?.filter((subject) => subject !== budget.subject);
        this.log.warn({ err: (error as Error).message, entryKey }, 'shared holds: a settled charge could not be registered on a budget');
      });
    }
  }

  release(hold: SharedHold | undefined): void {
    if (!hold?.open) return;
    hold.open = false;
    this.remove(hold);
  }

  /**
   * A job's hold, registered by the instance now responsible for the job (the one that accepted
   * it, or one that took it over after a restart or a crash), in place of any earlier registration
   * of the same job. Never refused: the money was set aside when the job was accepted. `previous`:
   * the request's own hold, which this one replaces.
   */
  takeOver(accountId: string, jobId: string, amount: number, expiresAt: number, previous?: SharedHold): SharedHold {
    const tag = `job:${jobId}`;
    const hold: SharedHold = { accountId, member: `${this.instance}|${tag}|${amount}`, amount, open: true };
    if (previous) previous.open = false;
    // a job's budgets were checked when it was accepted: its holds on them go with the request's
    for (const budget of previous?.budgets ?? []) void this.redis.zrem(holdsKey(budget.subject), budget.member).catch(() => undefined);
    this.redis
      .mgTakeOverHold(holdsKey(accountId), hold.member, expiresAt, tag, previous?.member ?? '', Date.now())
      .catch((error: unknown) => this.log.warn({ err: (error as Error).message, jobId }, 'shared holds: a job hold could not be registered'));
    return hold;
  }

  /**
   * Journal entries committed and polled back up to `seenSeq`: an instance whose view reaches
   * that far no longer counts those of them this instance registered.
   */
  visible(entries: LedgerEntry[], seenSeq: number): void {
    const sums = new Map<string, number>();
    for (const entry of entries) {
      const charge = this.registered.get(entry.entryKey);
      if (!charge) continue;
      this.registered.delete(entry.entryKey);
      sums.set(charge.accountId, (sums.get(charge.accountId) ?? 0) + charge.cost);
      for (const subject of charge.budgets ?? []) sums.set(subject, (sums.get(subject) ?? 0) + charge.cost);
    }
    this.mark(this.instance, sums, seenSeq);
  }

  /**
   * A replay committed the log of a process that died (`instance`, its owner id) and polled up
   * to `seenSeq`: whatever that instance still had pending on these accounts is in the store now.
   */
  visibleAll(instance: string, accountIds: Iterable<string>, seenSeq: number): void {
    const sums = new Map<string, 'all'>();
    for (const accountId of accountIds) sums.set(accountId, 'all');
    this.mark(instance, sums, seenSeq);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.redis
      .multi()
      .del(`mg:instance:${this.instance}`)
      .hdel('mg:seen', this.instance)
      .exec()
      .catch(() => undefined);
  }

  private mark(instance: string, sums: Map<string, number | 'all'>, seenSeq: number): void {
    if (sums.size === 0) return;
    const pipeline = this.redis.pipeline() as unknown as {
      mgChargesVisible(pending: string, marked: string, seq: number, instance: string, sum: number | 'all', nonce: string): void;
      exec(): Promise<unknown>;
    };
    for (const [accountId, sum] of sums) pipeline.mgChargesVisible(pendingKey(accountId), markedKey(accountId), seenSeq, instance, sum, randomUUID().slice(0, 8));
    pipeline.exec().catch((error: unknown) => this.log.warn({ err: (error as Error).message }, 'shared holds: committed charges could not be marked'));
  }

  private async admit(hold: SharedHold, balanceNano: number, replace: string): Promise<boolean> {
    const outcome = await this.tryAdmit(hold.accountId, hold.member, hold.amount, balanceNano, replace);
    if (outcome === 'refused') {
      throw insufficientQuota('Insufficient balance: requests in flight or just charged on other gateway instances already use it. Retry shortly or top up.');
    }
    return outcome === 'admitted';
  }

  /** One admission under `name` (an account, or a budget's subject); 'unavailable': Redis failed (logged). */
  private async tryAdmit(name: string, member: string, amount: number, balanceNano: number, replace: string): Promise<'admitted' | 'refused' | 'unavailable'> {
    let result: number;
    try {
      result = await this.redis.mgAdmitHold(holdsKey(name), pendingKey(name), markedKey(name), Date.now(), amount, balanceNano, member, this.instance, this.seen(), replace);
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, 'shared holds unavailable; admitting on the local ledger only');
      return 'unavailable';
    }
    return result >= 0 ? 'refused' : 'admitted';
  }

  private remove(hold: SharedHold): void {
    void this.redis.zrem(holdsKey(hold.accountId), hold.member).catch(() => undefined);
    for (const budget of hold.budgets ?? []) void this.redis.zrem(holdsKey(budget.subject), budget.member).catch(() => undefined);
  }
}

const holdsKey = (accountId: string) => `mg:holds:${accountId}`;
const pendingKey = (accountId: string) => `mg:pending:${accountId}`;
const markedKey = (accountId: string) => `mg:marked:${accountId}`;
