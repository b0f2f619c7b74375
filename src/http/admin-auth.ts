import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { authenticationError } from '../core/errors.ts';
import { bearerToken } from './authenticate.ts';

/**
 * The admin API is closed unless MODELGATE_ADMIN_TOKEN is set. Digests of equal length are
 * compared in constant time, so neither the token nor its length leaks through timing.
 */
export function adminAuth(adminToken: string | undefined) {
  const expected = adminToken ? createHash('sha256').update(adminToken).digest() : undefined;
  return async (request: FastifyRequest) => {
    if (!expected) throw authenticationError('The admin API is closed: set MODELGATE_ADMIN_TOKEN to open it.', 'admin_disabled');
    const presented = bearerToken(request);
    const digest = createHash('sha256').update(presented ?? '').digest();
    if (!presented || !timingSafeEqual(digest, expected)) throw authenticationError('Invalid admin token.', 'invalid_admin_token');
  };
}
