import type { GatewayError } from '../core/errors.ts';

/**
 * Each client dialect has its own error body (contract §3). The dialect is chosen by path;
 * dialects added later register here.
 */
export interface ErrorDialect {
  name: string;
  matches(path: string): boolean;
  render(error: GatewayError): unknown;
}

export const openaiErrorDialect: ErrorDialect = {
  name: 'openai',
  matches: () => true,
  render: (error) => ({ error: { message: error.message, type: error.type, param: error.param, code: error.code } }),
};

const dialects: ErrorDialect[] = [];

/** Registers a dialect ahead of the OpenAI default (which matches everything). */
export function registerErrorDialect(dialect: ErrorDialect): void {
  if (!dialects.some((d) => d.name === dialect.name)) dialects.push(dialect);
}

export function errorDialectFor(path: string): ErrorDialect {
  return dialects.find((d) => d.matches(path)) ?? openaiErrorDialect;
}
