import type { ErrorDialect } from '../core/contracts/error-dialect.ts';
import { openaiErrorDialect } from '../dialects/openai/error-envelope.ts';

/**
 * Each client dialect has its own error body (contract §3). The dialect is chosen by path;
 * dialects added later register here.
 */
const dialects: ErrorDialect[] = [];

/** Registers a dialect ahead of the OpenAI default (which matches everything). */
export function registerErrorDialect(dialect: ErrorDialect): void {
  if (!dialects.some((d) => d.name === dialect.name)) dialects.push(dialect);
}

export function errorDialectFor(path: string): ErrorDialect {
  return dialects.find((d) => d.matches(path)) ?? openaiErrorDialect;
}
