import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyStore, Principal } from '../auth/key-store.ts';
import type { Ledger } from '../billing/ledger.ts';
import { authenticationError, modelNotFound } from '../core/errors.ts';

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

/** The keys in memory and whether their accounts are disabled: all authentication looks at. */
export interface AuthenticateDeps {
  keys: Pick<KeyStore, 'authenticate'>;
  ledger: Pick<Ledger, 'isAccountDisabled'>;
}

/**
 * onRequest hook for client routes: the key is checked before the body is even read. A callback
 * hook, not an async one: the check is synchronous (keys live in memory), and an async hook
 * costs a promise chain on every request.
 */
export function authenticateWith(deps: AuthenticateDeps, extract: (request: FastifyRequest) => string | undefined = bearerToken) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    let principal: Principal;
    try {
      principal = deps.keys.authenticate(extract(request));
      if (deps.ledger.isAccountDisabled(principal.accountId)) {
        throw authenticationError('The account of this API key is disabled. Contact the operator.', 'account_disabled');
      }
    } catch (error) {
      done(error as Error);
      return;
    }
    request.principal = principal;
    done();
  };
}

/** A key restricted to some models sees the others as nonexistent. */
export function checkModelAllowed(principal: Principal, model: string): void {
  const allowed = principal.key.models;
  if (allowed !== null && !allowed.includes(model)) {
    throw modelNotFound(model);
  }
}
