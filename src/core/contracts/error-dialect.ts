import type { GatewayError } from '../errors.ts';

/**
 * Each client dialect has its own error body (contract §3): a dialect declares which paths are
 * its own and how an error looks there; the HTTP layer picks one by path.
 */
export interface ErrorDialect {
  name: string;
  /** `path` is the request's URL (query string included); `headers` tell apart a path two wires share (`GET /v1/models`) */
  matches(path: string, headers: Readonly<Record<string, string | string[] | undefined>>): boolean;
  render(error: GatewayError): unknown;
}
