import type { ErrorDialect } from '../core/contracts/error-dialect.ts';
import { dialects, fallbackDialect } from '../dialects/registry.ts';

/** the dialects that claim paths of their own; every other path is the fallback's */
const claiming: readonly ErrorDialect[] = dialects.filter((dialect) => dialect !== fallbackDialect).map((dialect) => dialect.errors);

/**
 * Each client dialect has its own error body (contract §3), chosen by path from the registry —
 * also for what fails before a route matched (an unknown path, a malformed one).
 */
export function errorDialectFor(path: string, headers: Readonly<Record<string, string | string[] | undefined>>): ErrorDialect {
  return claiming.find((dialect) => dialect.matches(path, headers)) ?? fallbackDialect.errors;
}
