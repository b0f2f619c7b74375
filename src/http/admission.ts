import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/key-store.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { KeyRateLimiter } from '../limits/rate-limiter.ts';
import type { StateSync } from '../store/state-sync.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** null until admitted; then the `x-ratelimit-*` headers of the key's requests-per-minute limit */
    admission: Record<string, string> | null;
  }
}

/** The admission of a key without a requests-per-minute limit: no headers to send. */
export const NO_RATE_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

type Done = (error?: Error) => void;

/** The key's request limit, its account's balance and whether the write-behind keeps up: all admission looks at. */
export interface AdmissionDeps {
  limiter: Pick<KeyRateLimiter, 'admitRequest'>;
  ledger: Pick<Ledger, 'requireHeadroom'>;
  sync: Pick<StateSync, 'backlog'>;
}

/**
 * Admission before work, for the paid client routes (every POST of the client scopes): after the
 * key and its account (onRequest) and the body's schema, the key's requests-per-minute limit
 * (429), then a cheap balance check (402: nothing left to reserve, or the key's spend cap
 * reached) — before the handler tokenises a prompt, spools a multipart upload or converts
 * anything for a vendor. The tokens-per-minute limit and the reservation itself come later, in
 * runOperation, once the prompt is counted; runOperation knows the request was counted here.
 *
 * A preHandler, so it runs before a multipart body is read (the handlers read it as a stream),
 * and a callback hook: a key without a rate limit passes without a promise or a turn of the loop.
 * While the write-behind is behind (StateSync.backlog) new work waits once for its flush (at most
 * a second): a gateway saturated for long would otherwise queue charges and usage rows without bound.
 */
export function admitBeforeWork(deps: AdmissionDeps) {
  return (request: FastifyRequest, reply: FastifyReply, done: Done): void => {
    if (request.method !== 'POST') {
      done();
      return;
    }
    const backlog = deps.sync.backlog();
    if (backlog) void backlog.then(() => admit(deps, request, reply, done));
    else admit(deps, request, reply, done);
  };
}

/** The key's requests-per-minute limit, then its account's funds. */
function admit(deps: AdmissionDeps, request: FastifyRequest, reply: FastifyReply, done: Done): void {
  const principal = request.principal!;
  const counted = deps.limiter.admitRequest(principal.key);
  if (!counted) {
    checkFunds(deps, request, reply, principal, NO_RATE_HEADERS, done);
    return;
  }
  counted.then(
    (headers) => checkFunds(deps, request, reply, principal, headers, done),
    (error: Error) => refuse(request, reply, error, done),
  );
}

/** A multipart body is still unread when it is refused: the connection closes after the answer instead of draining it. */
function refuse(request: FastifyRequest, reply: FastifyReply, error: Error, done: Done): void {
  if (!request.raw.complete) reply.header('connection', 'close');
  done(error);
}

function checkFunds(deps: AdmissionDeps, request: FastifyRequest, reply: FastifyReply, principal: Principal, headers: Record<string, string>, done: Done): void {
  try {
    deps.ledger.requireHeadroom(principal.accountId, principal.key);
  } catch (error) {
    refuse(request, reply, error as Error, done);
    return;
  }
  request.admission = headers;
  done();
}
