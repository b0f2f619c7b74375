import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../core/errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const forbidden = (message: string, code: string) => new GatewayError({ status: 403, type: 'permission_error', message, code });

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

/**
 * Cross-site request defences for state-changing calls: the Origin must be this gateway's
 * (its public base URL, or the host the request was addressed to), and bodies must be JSON —
 * a content type no HTML form can send, so a cross-site write always needs a CORS preflight,
 * which is never granted.
 */
export function checkOriginAndType(request: FastifyRequest, publicOrigin: string): void {
  if (isSafeMethod(request.method)) return;
  const origin = request.headers.origin;
  const own = request.headers.host ? `${request.protocol}://${request.headers.host}` : undefined;
  if (!origin || (origin !== publicOrigin && origin !== own)) {
    throw forbidden('Cross-origin request refused: the console API only accepts requests from its own pages.', 'csrf_origin');
  }
  const type = request.headers['content-type'];
  const hasBody = request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0';
  if ((hasBody || request.method !== 'DELETE') && !(type ?? '').toLowerCase().startsWith('application/json')) {
    throw new GatewayError({ status: 415, type: 'invalid_request_error', message: 'Send JSON with "Content-Type: application/json".', code: 'unsupported_media_type' });
  }
}

/** The per-session token the page sends back in `x-csrf-token`. */
export function checkCsrfToken(request: FastifyRequest, expected: string): void {
  if (isSafeMethod(request.method)) return;
  const sent = request.headers['x-csrf-token'];
  const a = Buffer.from(typeof sent === 'string' ? sent : '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw forbidden('Missing or stale CSRF token: reload the console and try again.', 'csrf_token');
  }
}
