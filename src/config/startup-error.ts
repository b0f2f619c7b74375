import { StartupError } from '../core/startup-error.ts';

/** Main's end for a StartupError: its one line (no stack) on stderr, exit 1; any other error is rethrown. */
export function exitOnStartupError(error: unknown): never {
  if (!(error instanceof StartupError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
