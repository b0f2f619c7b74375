import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyStore, Principal } from '../auth/key-store.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { KeyPlace } from '../core/contracts/dialect.ts';
import { authenticationError, modelNotFound } from '../core/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** `Authorization: Bearer <key>`; the messages and Google dialects add their own places (keyFrom). */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = BEARER.exec(header);
  return match?.[1];
}

/** Whether bearerToken finds a key, without copying it out. */
export function hasBearerToken(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  return header !== undefined && BEARER.test(header);
}

/** Reads a dialect's key from its places, in order (Dialect.keys). */
export function keyFrom(places: readonly KeyPlace[]): (request: FastifyRequest) => string | undefined {
  if (places.length === 1 && places[0] === 'bearer') return bearerToken;
  const readers = places.map((place) => keyReaders[place]);
  return (request) => {
    for (const read of readers) {
      const key = read(request);
      if (key) return key;
    }
    return undefined;
  };
}

const header = (name: string) => (request: FastifyRequest) => {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const keyReaders: Record<KeyPlace, (request: FastifyRequest) => string | undefined> = {
  bearer: bearerToken,
  'x-api-key': header('x-api-key'),
  'x-goog-api-key': header('x-goog-api-key'),
  // read in onRequest, before any route's schema: the query is whatever the client sent
  'query-key': (request) => {
    const query: unknown = request.query;
    const key = typeof query === 'object' && query !== null && 'key' in query ? query.key : undefined;
    return typeof key === 'string' && key ? key : undefined;
  },
};

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
