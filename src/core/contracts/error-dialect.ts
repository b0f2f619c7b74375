import type { GatewayError } from '../errors.ts';

/**
 * Each client dialect has its own error body (contract §3): a dialect declares which paths are
 * its own and how an error looks there; the HTTP layer picks one by path.
 */
export interface ErrorDialect {
  name: string;
  matches(path: string): boolean;
  render(error: GatewayError): unknown;
}
