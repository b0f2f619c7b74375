import type { ConsoleContext } from './context.ts';

const EVERY_MS = 3_600_000;
const BATCH = 5_000;

/**
 * Hourly housekeeping, off the request path: usage rows older than the retention setting are
 * deleted (rollups and the ledger stay), and expired sessions are dropped.
 */
export async function runHousekeeping(ctx: ConsoleContext, now = Date.now()): Promise<number> {
  const db = ctx.gateway.store.db;
  await ctx.sessions.removeExpired(now);
  const { usage_retention_days: days } = await ctx.settings.read();
  if (days === null) return 0;
  const cutoff = now - days * 86_400_000;
  let deleted = 0;
  for (;;) {
    const result = await db
      .deleteFrom('usage_log')
      .where('id', 'in', (eb) => eb.selectFrom('usage_log').select('id').where('created_at', '<', cutoff).limit(BATCH))
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    deleted += n;
    if (n < BATCH) return deleted;
  }
}

export function startHousekeeping(ctx: ConsoleContext): () => void {
  const run = () => void runHousekeeping(ctx).catch((err: unknown) => ctx.gateway.log.error({ err }, 'console housekeeping failed'));
  const first = setTimeout(run, 60_000);
  const timer = setInterval(run, EVERY_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
