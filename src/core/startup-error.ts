/** A start-up failure the operator fixes by hand: printed as its one line (no stack), exit 1. */
export class StartupError extends Error {}

/** A connection URL safe to print: the password dropped. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url.replace(/:[^:@/]*@/, '@');
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString().replace(/\/$/, '');
}

/** The reason in a few words; a refused dual-stack connect is an AggregateError with an empty message. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return reasonOf(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}
