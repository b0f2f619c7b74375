import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/env.ts';

/**
 * The base URL customers should give their SDKs (with /v1). PUBLIC_BASE_URL when the operator
 * set one; otherwise the address the browser reached the console at, which is right behind a
 * proxy or on 0.0.0.0, where the listening address is not.
 */
export function clientBaseUrl(config: Config, request: FastifyRequest): string {
  const listening = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const configured = config.publicBaseUrl !== listening;
  const host = request.headers.host;
  const base = configured || !host ? config.publicBaseUrl : `${request.protocol}://${host}`;
  return `${base}/v1`;
}
