import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../pipeline/types.ts';
import { NO_RATE_HEADERS } from './admission.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the client's x-request-id when it sent a usable one, else the gateway's own id */
    correlationId: string;
  }
}

const USABLE_ID = /^[\w.:-]{1,128}$/;

/** x-request-id in and out: the client's own id is echoed back; the gateway's id keys the ledger. */
export function correlationIdOf(request: FastifyRequest): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && USABLE_ID.test(sent) ? sent : request.id;
}

export function contextOf(request: FastifyRequest): RequestContext {
  if (!request.principal) throw new Error('contextOf called on an unauthenticated route');
  const admission = request.admission;
  return {
    requestId: request.id,
    principal: request.principal,
    responseHeaders: admission === null || admission === NO_RATE_HEADERS ? { 'x-request-id': request.correlationId } : { 'x-request-id': request.correlationId, ...admission },
    startedAt: Date.now(),
    requestCounted: admission !== null,
  };
}
