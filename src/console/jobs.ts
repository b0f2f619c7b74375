import { deleteUsageBefore } from '../store/repositories/usage-retention.ts';
import type { ConsoleContext } from './context.ts';

const EVERY_MS = 3_600_000;

/**
 * Hourly housekeeping, off the request path: usage rows older than the retention setting are
 * deleted (rollups and the ledger stay), and expired sessions are dropped.
 */
export async function runHousekeeping(ctx: ConsoleContext, now = Date.now()): Promise<number> {
  await ctx.sessions.removeExpired(now);
  const { usage_retention_days: days } = await ctx.settings.read();
  if (days === null) return 0;
  return deleteUsageBefore(ctx.deps.store.db, now - days * 86_400_000);
}

export function startHousekeeping(ctx: ConsoleContext): () => void {
  const run = () => void runHousekeeping(ctx).catch((err: unknown) => ctx.deps.log.error({ err }, 'console housekeeping failed'));
  const first = setTimeout(run, 60_000);
  const timer = setInterval(run, EVERY_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
