import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/key-store.ts';
import { authenticationError, modelNotFound } from '../core/errors.ts';
import type { Gateway } from '../gateway.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** `Authorization: Bearer <key>`; the messages and Google dialects add their own headers. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** onRequest hook for client routes: the key is checked before the body is even read. */
export function authenticateWith(gateway: Gateway, extract: (request: FastifyRequest) => string | undefined = bearerToken) {
  return async (request: FastifyRequest) => {
    const principal = gateway.keys.authenticate(extract(request));
    if (gateway.ledger.isAccountDisabled(principal.accountId)) {
      throw authenticationError('The account of this API key is disabled. Contact the operator.', 'account_disabled');
    }
    request.principal = principal;
  };
}

/** A key restricted to some models sees the others as nonexistent. */
export function checkModelAllowed(principal: Principal, model: string): void {
  const allowed = principal.key.models;
  if (allowed !== null && !allowed.includes(model)) {
    throw modelNotFound(model);
  }
}
